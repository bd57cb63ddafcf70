"""Sets a Kazoo 2.8 Barrier under a base path for cmd's
TestLsSingleBarriers: one client creates it, another waits on it (and is
a Party member, named "waiter-k"); beside it a DataWatch on an empty node
(the look-alike no name makes a barrier) and a Kazoo Election of two.
Prints "sessions <waiter>" (hex), then "ready"; on the line "remove" it
removes the barrier and the waiter prints "passed" as it goes through.
Exits when its stdin closes. Usage: barrier_kazoo.py <hosts> <base>"""
import sys
import threading

from kazoo.client import KazooClient

hosts, base = sys.argv[1], sys.argv[2]
setter, waiter = KazooClient(hosts=hosts), KazooClient(hosts=hosts)
setter.start()
waiter.start()
setter.Barrier(base + "/kbarrier").create()
waiter.Party(base + "/party", "waiter-k").join()


def wait():
    waiter.Barrier(base + "/kbarrier").wait()
    print("passed", flush=True)


threading.Thread(target=wait, daemon=True).start()
setter.ensure_path(base + "/flag")
waiter.DataWatch(base + "/flag", lambda data, stat: None)
# A Kazoo Election on the wire is a Kazoo Lock holding the identifier.
for client, ident, n in ((setter, "leader-a", 1), (waiter, "leader-b", 2)):
    election = client.Election(base + "/kelection", ident)
    threading.Thread(target=election.run, args=(threading.Event().wait,), daemon=True).start()
    while len(election.contenders()) < n:
        threading.Event().wait(0.02)
print("sessions %x" % waiter.client_id[0], flush=True)
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "remove":
        setter.Barrier(base + "/kbarrier").remove()
