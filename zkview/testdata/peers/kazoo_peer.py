"""A Kazoo lock client for zkview's tests (Debian's Kazoo 2.8 under /usr/bin/python3).

Usage: kazoo_peer.py HOSTS SESSION_TIMEOUT_S CLIENTS
Prints "session I 0xID" for each client, then reads commands:
  acquire CLIENT ID PATH mutex|read|write   acquire in a thread; prints "acquired ID"
  release ID                                prints "released ID"
  quit
"""
import sys
import threading

from kazoo.client import KazooClient

hosts, timeout, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
clients = []
for i in range(n):
    c = KazooClient(hosts=hosts, timeout=timeout)
    c.start()
    clients.append(c)
    print("session %d 0x%x" % (i, c.client_id[0]), flush=True)

locks = {}


def acquire(lid, lk):
    lk.acquire()
    print("acquired", lid, flush=True)


for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "acquire":
        ci, lid, path, kind = int(parts[1]), parts[2], parts[3], parts[4]
        c = clients[ci]
        lk = {"mutex": c.Lock, "read": c.ReadLock, "write": c.WriteLock}[kind](path, "kazoo-%s" % lid)
        locks[lid] = lk
        threading.Thread(target=acquire, args=(lid, lk), daemon=True).start()
    elif parts[0] == "release":
        locks[parts[1]].release()
        print("released", parts[1], flush=True)
    elif parts[0] == "quit":
        break
for c in clients:
    c.stop()
    c.close()
