"""Builds Kazoo 2.8's recipes that are no lock under a base path, for
cmd's TestLsLibraryRecipes; prints "ready" once all are in place and
exits when its stdin closes. Usage: recipes_kazoo.py <hosts> <base>"""
import datetime
import sys
import threading

from kazoo.client import KazooClient

hosts, base = sys.argv[1], sys.argv[2]
c1, c2 = KazooClient(hosts=hosts), KazooClient(hosts=hosts)
c1.start()
c2.start()
for c, ident in ((c1, "party-a"), (c2, "party-b")):
    c.Party(base + "/party", ident).join()
    c.ShallowParty(base + "/shallow", ident).join()
for c, ident in ((c1, "db-a"), (c2, "db-b")):
    threading.Thread(target=c.DoubleBarrier(base + "/dbarrier", 3, ident).enter, daemon=True).start()
counter = c1.Counter(base + "/counter")
counter += 5
queue = c1.LockingQueue(base + "/lqueue")
queue.put(b"job-1")
queue.put(b"job-2", priority=5)
queue.put(b"job-3")
assert c2.LockingQueue(base + "/lqueue").get(5) == b"job-2"
assert c1.NonBlockingLease(base + "/lease", datetime.timedelta(minutes=5), identifier="lease-holder-1")
# The look-alike: a Kazoo Lock with an identifier, held (an Election's
# layout too: only the context's elections: can tell).
assert c1.Lock(base + "/lock", "worker-1").acquire(timeout=5)
while len(c1.get_children(base + "/dbarrier")) < 2:
    threading.Event().wait(0.02)
print("ready", flush=True)
sys.stdin.read()
