"""Stock Kazoo locks driven by zklock's tests and benchmarks.

Package zklock/sandbox/peers runs this with /usr/bin/python3 (Debian's
Kazoo 2.8 lives there) and documents the line protocol in protocol.go.
Usage: kazoo_peer.py HOSTS SESSION_TIMEOUT_MS CLIENTS CONNECT_TIMEOUT_MS
where HOSTS is one connect string, or one per client separated by '|'.

Only stock recipes are used (Lock, ReadLock, WriteLock, Semaphore), configured as an
application would; the driver adds bookkeeping around them, never
behaviour inside them (it restarts a client that Kazoo stopped on a link
dropped during SASL, as an application must: see restart_client).
"""
import os
import random
import sys
import threading
import time

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import CancelledError, LockTimeout
from kazoo.protocol.states import KeeperState

_out = threading.Lock()


def emit(line):
    # One line at a time, flushed at once: the Go side timestamps nothing.
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def now():
    # Wall-clock unix nanoseconds: comparable with every other process on
    # this machine.
    return time.time_ns()


def one_line(e):
    s = ("%s: %s" % (type(e).__name__, e)).replace("\n", " ").replace("\r", " ")
    return s or "-"


class Client(object):
    """One session and what it has been told about its connection."""

    def __init__(self, index, kc):
        self.index = index
        self.kc = kc
        self.session = 0
        self.closing = False
        self.suspended = False
        self.held = set()  # hold ids
        # The loop's critical section: the first notice (SUSPENDED or LOST)
        # received while holding, so that a test knows when this client
        # stopped trusting its lock.
        self.mu = threading.Lock()
        self.holding = False
        self.notice = 0
        self.lost = False
        self.restarts = 0

    def begin_hold(self):
        with self.mu:
            self.holding, self.notice, self.lost = True, 0, False

    def end_hold(self):
        with self.mu:
            self.holding = False
            return self.notice, self.lost

    def noticed(self, t, lost):
        with self.mu:
            if self.holding:
                if not self.notice:
                    self.notice = t
                self.lost = self.lost or lost

    def restart(self):
        restart_client(self)

    def read_session(self):
        cid = self.kc.client_id
        return cid[0] if cid else 0

    def listener(self, state):
        # Called on Kazoo's connection thread: must not block.
        if self.closing:
            return
        t = now()
        if state == KazooState.SUSPENDED:
            self.suspended = True
            self.noticed(t, False)
            emit("state %d SUSPENDED %d" % (self.index, t))
        elif state == KazooState.LOST:
            self.suspended = True
            self.noticed(t, True)
            emit("state %d LOST %d" % (self.index, t))
            with self.mu:
                lost, self.held = self.held, set()
            for hid in sorted(lost):
                emit("lost %s %d" % (hid, t))
            if self.kc.client_state == KeeperState.AUTH_FAILED and self.session and self.restarts < MAX_RESTARTS:
                self.restarts += 1
                threading.Thread(target=self.restart, daemon=True).start()
        elif state == KazooState.CONNECTED:
            s = self.read_session()
            if s and s != self.session:
                self.session = s
                emit("session %d %x" % (self.index, s))
            if self.suspended:
                self.suspended = False
                emit("state %d RECONNECTED %d" % (self.index, t))


# Kazoo 2.8 takes a link dropped in the middle of its SASL exchange for
# a refused login (AUTH_FAILED, "Connection dropped in SASL") and stops
# connecting for good: an ensemble that drops its clients in an election
# can do that to a client that was re-authenticating. A Kazoo application
# has to restart its client then, so this driver does, for a client that
# had logged in before, at most MAX_RESTARTS times.
MAX_RESTARTS = 5


def restart_client(c):
    sys.stderr.write("kazoo_peer: client %d AUTH_FAILED after it had logged in (a link dropped during SASL?): restarting it\n" % c.index)
    sys.stderr.flush()
    for _ in range(3):
        try:
            c.kc.restart()  # stop (the old session's nodes expire) and start again
            return
        except Exception as e:
            sys.stderr.write("kazoo_peer: client %d restart: %s\n" % (c.index, one_line(e)))
            sys.stderr.flush()
            time.sleep(1)


def new_lock(kc, path, kind):
    if kind == "seqmutex":
        # Told to see Curator's mutex nodes too (Kazoo 2.7.1+), ordered
        # by sequence with its own.
        return kc.Lock(path, extra_lock_patterns=("-lock-",))
    make = {"mutex": kc.Lock, "read": kc.ReadLock, "write": kc.WriteLock}[kind]
    return make(path)


holds = {}  # id -> Hold
loops = {}  # id -> Loop
clients = []


class Hold(object):
    """One acquire request and, once granted, the lock it holds."""

    def __init__(self, hid, client, lock):
        self.id = hid
        self.client = client
        self.lock = lock
        self.release = threading.Event()
        self.cancelled = False

    def run(self):
        t_req = now()
        try:
            got = (not self.cancelled) and self.lock.acquire()
        except CancelledError:
            got = False
        except Exception as e:  # an acquire that failed
            if not self.cancelled:
                emit("failed %s %s" % (self.id, one_line(e)))
                holds.pop(self.id, None)
                return
            got = False
        if not got:
            # Kazoo deleted its node before returning.
            emit("cancelled %s" % self.id)
            holds.pop(self.id, None)
            return
        t_acq = now()
        node = self.lock.node or "-"
        with self.client.mu:
            self.client.held.add(self.id)
        emit("acquired %s %s %d %d" % (self.id, node, t_req, t_acq))
        self.release.wait()
        with self.client.mu:
            self.client.held.discard(self.id)
        t_call = now()
        try:
            self.lock.release()
            emit("released %s %d %d" % (self.id, t_call, now()))
        except Exception as e:
            emit("failed %s %s" % (self.id, one_line(e)))
        holds.pop(self.id, None)

    def cancel(self):
        self.cancelled = True
        self.lock.cancel()
        # A cancel of a granted request releases it.
        self.release.set()


class ElectionHold(object):
    """A Kazoo Election participant (kind election): "acquired" once run()
    calls it as the leader, "released" once run() returned (its lock let
    go). The participant id, the node's data, is the request id."""

    def __init__(self, hid, client, path):
        self.id = hid
        self.client = client
        self.election = client.kc.Election(path, hid)
        self.release = threading.Event()
        self.cancelled = False
        self.t_call = 0

    def lead(self):
        t_acq = now()
        node = self.election.lock.node or "-"
        with self.client.mu:
            self.client.held.add(self.id)
        emit("acquired %s %s %d %d" % (self.id, node, self.t_req, t_acq))
        self.release.wait()
        with self.client.mu:
            self.client.held.discard(self.id)
        self.t_call = now()

    def run(self):
        self.t_req = now()
        try:
            if self.cancelled:
                raise CancelledError()
            self.election.run(self.lead)
        except CancelledError:
            emit("cancelled %s" % self.id)
            holds.pop(self.id, None)
            return
        except Exception as e:
            emit("failed %s %s" % (self.id, one_line(e)))
            holds.pop(self.id, None)
            return
        emit("released %s %d %d" % (self.id, self.t_call, now()))
        holds.pop(self.id, None)

    def cancel(self):
        self.cancelled = True
        self.election.cancel()
        self.release.set()


class SemaphoreLease(object):
    """A lease of a stock Kazoo Semaphore (kind semaphore:N, N its
    max_leases), shaped like a lock for Hold: acquire, release, cancel, and
    node, the lease node's name once held. Stock Kazoo's cancel wakes only
    a contender that waits for a lease; one still in line for the
    semaphore's lock (<path>-__lock__) waits until it is admitted."""

    def __init__(self, kc, path, max_leases):
        self.sem = kc.Semaphore(path, max_leases=max_leases)

    @property
    def node(self):
        if not self.sem.is_acquired:
            return None
        return self.sem.create_path.rsplit("/", 1)[1]

    def acquire(self, timeout=None):
        return self.sem.acquire(timeout=timeout)

    def release(self):
        return self.sem.release()

    def cancel(self):
        self.sem.cancel()


def new_hold(hid, c, path, kind):
    """The request's hold: a lock of kind, a semaphore's lease, or an
    election participant."""
    if kind.startswith("semaphore:"):
        return Hold(hid, c, SemaphoreLease(c.kc, path, int(kind[len("semaphore:"):])))
    if kind == "election":
        return ElectionHold(hid, c, path)
    return Hold(hid, c, new_lock(c.kc, path, kind))


class Loop(object):
    def __init__(self, lid):
        self.id = lid
        self.stopped = False
        self.locks = []


def loop(f):
    """loop ID PATH KIND CLIENTS DURATION_US CYCLES HOLD_US GIVEUP_PCT GIVEUP_WITHIN_US"""
    lp = Loop(f[1])
    path, kind = f[2], f[3]
    cs = clients if f[4] == "all" else [clients[int(i)] for i in f[4].split(",")]
    duration = int(f[5]) / 1e6
    cycles = int(f[6])
    hold = int(f[7]) / 1e6
    give_up_pct = int(f[8])
    within = int(f[9]) / 1e6
    deadline = time.monotonic() + duration if duration > 0 else float("inf")
    loops[lp.id] = lp
    threads = []
    for c in cs:
        lk = new_lock(c.kc, path, kind)
        lp.locks.append(lk)
        th = threading.Thread(target=contend, args=(lp, c, lk, deadline, cycles, hold, give_up_pct, within), daemon=True)
        threads.append(th)

    def wait_all():
        for th in threads:
            th.join()
        loops.pop(lp.id, None)
        emit("loopdone %s" % lp.id)

    for th in threads:
        th.start()
    threading.Thread(target=wait_all, daemon=True).start()


def contend(lp, c, lk, deadline, cycles, hold, give_up_pct, within):
    """One client's cycles of a loop: one lock object, reused as an application would."""
    n = 0
    while (cycles <= 0 or n < cycles) and time.monotonic() < deadline and not lp.stopped:
        n += 1
        give_up = give_up_pct > 0 and random.randrange(100) < give_up_pct
        timeout = random.uniform(0, within) if give_up else None
        session = c.session
        t_req = now()
        try:
            got = lk.acquire(timeout=timeout)
        except LockTimeout:
            got = False
        except CancelledError:
            return
        except Exception as e:
            if lp.stopped:
                return
            emit_cycle(lp, c, False, False, "-", t_req, now(), 0, 0, 0, False, session, "acquire: " + one_line(e))
            time.sleep(0.1)  # do not spin on a broken connection
            continue
        t_acq = now()
        if not got:
            if lp.stopped:
                return
            emit_cycle(lp, c, False, True, "-", t_req, t_acq, 0, 0, 0, False, session, "-")
            continue
        c.begin_hold()
        node = lk.node or "-"
        if hold > 0:
            time.sleep(hold)
        t_call = now()
        notice, lost = c.end_hold()
        err = "-"
        try:
            lk.release()
        except Exception as e:
            err = "release: " + one_line(e)
        t_ret = now()
        emit_cycle(lp, c, True, False, node, t_req, t_acq, t_call, t_ret, notice, lost, session, err)


def emit_cycle(lp, c, held, gave_up, node, t_req, t_acq, t_call, t_ret, t_notice, lost, session, err):
    emit("cycle %s %d %d %d %s %d %d %d %d %d %d %x %s" % (
        lp.id, c.index, int(held), int(gave_up), node, t_req, t_acq, t_call, t_ret, t_notice, int(lost), session, err))


def command(f):
    """Runs one command; True on quit."""
    cmd = f[0]
    if cmd == "acquire":
        try:
            c = clients[int(f[2])]
            h = new_hold(f[1], c, f[3], f[4])
        except Exception as e:
            emit("failed %s %s" % (f[1], one_line(e)))
            return False
        holds[h.id] = h
        threading.Thread(target=h.run, daemon=True).start()
    elif cmd == "release":
        h = holds.get(f[1])
        if h:
            h.release.set()
    elif cmd == "cancel":
        h = holds.get(f[1])
        if h:
            h.cancel()
    elif cmd == "loop":
        loop(f)
    elif cmd == "stop":
        lp = loops.get(f[1])
        if lp:
            lp.stopped = True
            for lk in lp.locks:
                lk.cancel()
    elif cmd == "close":
        c = clients[int(f[1])]
        c.closing = True
        c.kc.stop()
        c.kc.close()
        emit("closed %d" % c.index)
    elif cmd == "quit":
        return True
    else:
        raise ValueError("unknown command")
    return False


def tls_options():
    """KazooClient's TLS arguments from the environment (peers' tls.go):
    none when ZKLOCK_PEER_TLS_CA is unset."""
    ca = os.environ.get("ZKLOCK_PEER_TLS_CA")
    if not ca:
        return {}
    return dict(use_ssl=True, verify_certs=True, ca=ca,
                certfile=os.environ.get("ZKLOCK_PEER_TLS_CERT") or None,
                keyfile=os.environ.get("ZKLOCK_PEER_TLS_KEY") or None)


def sasl_options():
    """KazooClient's SASL arguments from the environment (peers' sasl.go):
    GSSAPI (from the credential cache KRB5CCNAME) when
    ZKLOCK_PEER_SASL_MECHANISM says so, else DIGEST-MD5, none when
    ZKLOCK_PEER_SASL_USER is unset. Kazoo runs the exchange (pure-sasl) on
    every connection it makes."""
    if os.environ.get("ZKLOCK_PEER_SASL_MECHANISM") == "GSSAPI":
        return dict(sasl_options=dict(mechanism="GSSAPI", service="zookeeper"))
    user = os.environ.get("ZKLOCK_PEER_SASL_USER")
    if not user:
        return {}
    return dict(sasl_options=dict(mechanism="DIGEST-MD5", username=user,
                                  password=os.environ.get("ZKLOCK_PEER_SASL_PASSWORD", "")))


def main():
    # HOSTS is one connect string for every client, or one per client
    # separated by '|'.
    hosts = sys.argv[1].split("|")
    session_s = int(sys.argv[2]) / 1000.0
    n = int(sys.argv[3])
    connect_s = int(sys.argv[4]) / 1000.0
    # Retries: a contender keeps contending through faults, as a service
    # would, and reconnects within a second once a server is back (Kazoo's
    # default backoff grows to an hour).
    retry = dict(max_tries=-1, delay=0.05, backoff=2, max_delay=1.0)
    started = []
    for i in range(n):
        kc = KazooClient(hosts=hosts[0] if len(hosts) == 1 else hosts[i], timeout=session_s, connection_retry=retry, command_retry=retry, **tls_options(), **sasl_options())
        c = Client(i, kc)
        clients.append(c)
        started.append(kc.start_async())
    for c, ev in zip(clients, started):
        ev.wait(connect_s)
        if not c.kc.connected:
            sys.stderr.write("kazoo_peer: client %d not connected to %s after %.1f s\n" % (c.index, hosts[0] if len(hosts) == 1 else hosts[c.index], connect_s))
            sys.stderr.flush()
            os._exit(2)
        c.session = c.read_session()
        c.kc.add_listener(c.listener)
        emit("session %d %x" % (c.index, c.session))
    emit("ready")
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            if command(f):
                break
        except Exception as e:
            sys.stderr.write("kazoo_peer: bad command %r: %s\n" % (line, one_line(e)))
            sys.stderr.flush()
    for c in clients:
        c.closing = True
        try:
            c.kc.stop()
            c.kc.close()
        except Exception:
            pass
    # Threads blocked in acquire are daemons; do not wait for them.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
