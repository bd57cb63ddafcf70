import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryForever;

/**
 * Stock Apache Curator 5 locks driven by zklock's tests and benchmarks
 * (package zklock/sandbox/peers, which documents the line protocol in
 * protocol.go). Usage: CuratorPeer HOSTS SESSION_TIMEOUT_MS CLIENTS CONNECT_TIMEOUT_MS,
 * where HOSTS is one connect string, or one per client separated by '|'.
 *
 * Only stock recipes are used (InterProcessMutex, InterProcessReadWriteLock,
 * InterProcessSemaphoreV2; kind seqmutex gives InterProcessMutex a lock
 * driver sorting by sequence, as an application sharing a path with Kazoo does),
 * configured as an application would; the driver adds bookkeeping around
 * them, never behaviour inside them.
 */
public final class CuratorPeer {
    private static final PrintStream OUT =
        new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);
    private static final LinkedBlockingQueue<String> LINES = new LinkedBlockingQueue<>();

    /**
     * Queues one line for the writer thread, so that 32 contending threads
     * never wait on each other's write(2) between two cycles; the queue
     * keeps the lines in the order emit was called.
     */
    static void emit(String line) {
        LINES.add(line);
    }

    /** Marks the end of the lines (an identity, never printed). */
    private static final String END = new String("end");
    private static Thread writer;

    /** Writes queued lines in batches, flushing whenever the queue runs dry. */
    static void writeLines() {
        List<String> batch = new ArrayList<>();
        try {
            for (;;) {
                batch.add(LINES.take());
                LINES.drainTo(batch);
                for (String l : batch) {
                    if (l == END) {
                        OUT.flush();
                        return;
                    }
                    OUT.print(l);
                    OUT.print('\n');
                }
                batch.clear();
                if (LINES.isEmpty()) {
                    OUT.flush();
                }
            }
        } catch (InterruptedException e) {
            OUT.flush();
        }
    }

    /** Writes what is queued, then exits. */
    static void exit(int code) {
        LINES.add(END);
        try {
            writer.join(5000);
        } catch (InterruptedException e) {
            // exiting anyway
        }
        System.exit(code);
    }

    /** Wall-clock unix nanoseconds: comparable with every other process on this machine. */
    static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    static String oneLine(Throwable e) {
        String s = e.toString().replace('\n', ' ').replace('\r', ' ');
        return s.isEmpty() ? "-" : s;
    }

    /** The lock's own node. InterProcessMutex keeps it behind a protected getter. */
    static Method lockPathGetter;

    static String nodeOf(InterProcessMutex lock) {
        try {
            String p = (String) lockPathGetter.invoke(lock);
            if (p == null) {
                return "-";
            }
            return p.substring(p.lastIndexOf('/') + 1);
        } catch (Exception e) {
            return "-";
        }
    }

    static InterProcessMutex newLock(CuratorFramework fw, String path, String kind) {
        switch (kind) {
            case "mutex":
                return new InterProcessMutex(fw, path);
            case "seqmutex":
                return new InterProcessMutex(fw, path, new SequenceDriver());
            case "read":
                return new InterProcessReadWriteLock(fw, path).readLock();
            case "write":
                return new InterProcessReadWriteLock(fw, path).writeLock();
            default:
                throw new IllegalArgumentException("unknown lock kind " + kind);
        }
    }

    /**
     * A lock driver that sorts the children by their sequence suffix
     * instead of the text after "lock-", so that the mutex sees other
     * recipes' nodes (Kazoo's) in creation order and waits on them: the
     * custom driver an application writes to share a path with Kazoo
     * (kind seqmutex).
     */
    static final class SequenceDriver extends StandardLockInternalsDriver {
        @Override
        public String fixForSorting(String str, String lockName) {
            int n = str.length();
            if (n >= 10 && str.substring(n - 10).chars().allMatch(Character::isDigit)) {
                return str.substring(n - 10);
            }
            return str;
        }
    }

        /** One session and what it has been told about its connection. */
    static final class Client {
        final int index;
        final CuratorFramework fw;
        volatile long session;
        volatile boolean closing;
        final Set<Hold> held = ConcurrentHashMap.newKeySet();
        // The loop's critical section: the first notice (SUSPENDED or LOST)
        // received while holding, so that a test knows when this client
        // stopped trusting its lock.
        private boolean holding;
        private long notice;
        private boolean lost;

        Client(int index, CuratorFramework fw) {
            this.index = index;
            this.fw = fw;
        }

        synchronized void beginHold() {
            holding = true;
            notice = 0;
            lost = false;
        }

        /** Ends the hold; returns {notice time, lost (1 or 0)}. */
        synchronized long[] endHold() {
            holding = false;
            return new long[] {notice, lost ? 1 : 0};
        }

        synchronized void noticed(long t, boolean isLost) {
            if (holding) {
                if (notice == 0) {
                    notice = t;
                }
                lost |= isLost;
            }
        }

        long readSession() {
            try {
                return fw.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                return 0;
            }
        }
    }

    /** One acquire request and, once granted, the lock it holds. */
    static final class Hold {
        final String id;
        final Client client;
        final InterProcessMutex lock;
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean cancelled;
        volatile Thread thread;

        Hold(String id, Client client, InterProcessMutex lock) {
            this.id = id;
            this.client = client;
            this.lock = lock;
        }

        void run() {
            long tReq = now();
            boolean got = false;
            try {
                if (!cancelled) {
                    lock.acquire();
                    got = true;
                }
            } catch (Exception e) {
                if (!cancelled) {
                    emit("failed " + id + " " + oneLine(e));
                    holds.remove(id);
                    return;
                }
            }
            if (!got) {
                // Curator deleted its node (in the background if the
                // interrupt cut its create or delete short).
                emit("cancelled " + id);
                holds.remove(id);
                return;
            }
            long tAcq = now();
            client.held.add(this);
            emit("acquired " + id + " " + nodeOf(lock) + " " + tReq + " " + tAcq);
            try {
                release.await();
            } catch (InterruptedException e) {
                // cancel of a granted request: release it like a release
            }
            Thread.interrupted();
            client.held.remove(this);
            long tCall = now();
            try {
                lock.release();
                emit("released " + id + " " + tCall + " " + now());
            } catch (Exception e) {
                emit("failed " + id + " " + oneLine(e));
            }
            holds.remove(id);
        }
    }

    /**
     * A LeaderLatch participant (kind latch): "acquired" once it has
     * leadership (hasLeadership() true), "lost" when the latch takes it
     * away (notLeader: a suspended or lost connection), "released" once
     * close() returned. The participant id, the node's data, is the
     * request id.
     */
    static final class LatchHold {
        final String id;
        final Client client;
        final LeaderLatch latch;
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean cancelled;
        volatile boolean granted;
        volatile boolean done;
        volatile Thread thread;

        LatchHold(String id, Client client, String path) {
            this.id = id;
            this.client = client;
            this.latch = new LeaderLatch(client.fw, path, id);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    // await() tells the first time; later terms are not reported.
                }

                @Override
                public void notLeader() {
                    if (granted && !done) {
                        done = true;
                        emit("lost " + LatchHold.this.id + " " + now());
                    }
                }
            });
        }

        void run() {
            long tReq = now();
            try {
                latch.start();
                latch.await();
            } catch (Exception e) {
                closeQuietly();
                if (cancelled) {
                    emit("cancelled " + id);
                } else {
                    emit("failed " + id + " " + oneLine(e));
                }
                latches.remove(id);
                return;
            }
            long tAcq = now();
            granted = true;
            String p = latch.getOurPath();
            String node = p == null ? "-" : p.substring(p.lastIndexOf('/') + 1);
            emit("acquired " + id + " " + node + " " + tReq + " " + tAcq);
            try {
                release.await();
            } catch (InterruptedException e) {
                // cancel of a granted request: release it like a release
            }
            Thread.interrupted();
            done = true;
            long tCall = now();
            try {
                latch.close();
                emit("released " + id + " " + tCall + " " + now());
            } catch (Exception e) {
                emit("failed " + id + " " + oneLine(e));
            }
            latches.remove(id);
        }

        void closeQuietly() {
            try {
                latch.close();
            } catch (Exception e) {
                // not started, or already closed
            }
        }
    }

    static final Map<String, LatchHold> latches = new ConcurrentHashMap<>();

    /** acquire ID C PATH latch: joins the LeaderLatch at PATH as participant ID. */
    static void startLatch(String[] f) {
        LatchHold h;
        try {
            h = new LatchHold(f[1], clients[Integer.parseInt(f[2])], f[3]);
        } catch (RuntimeException e) {
            emit("failed " + f[1] + " " + oneLine(e));
            return;
        }
        latches.put(h.id, h);
        Thread t = new Thread(h::run, "latch-" + h.id);
        t.setDaemon(true);
        h.thread = t;
        t.start();
    }

    /**
     * A lease of an InterProcessSemaphoreV2 (kind semaphore:N, N its
     * maxLeases): "acquired" once acquire() returned the lease (NODE is the
     * lease node), "released" once returnLease returned. A cancel
     * interrupts a waiting acquire (Curator deletes its lock and lease
     * nodes) or returns a granted lease.
     */
    static final class SemHold {
        final String id;
        final InterProcessSemaphoreV2 semaphore;
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean cancelled;
        volatile Thread thread;

        SemHold(String id, Client client, String path, int maxLeases) {
            this.id = id;
            this.semaphore = new InterProcessSemaphoreV2(client.fw, path, maxLeases);
        }

        void run() {
            long tReq = now();
            Lease lease;
            try {
                if (cancelled) {
                    throw new InterruptedException("cancelled");
                }
                lease = semaphore.acquire();
            } catch (Exception e) {
                emit(cancelled ? "cancelled " + id : "failed " + id + " " + oneLine(e));
                semHolds.remove(id);
                return;
            }
            long tAcq = now();
            String p = lease.getNodeName();
            String node = p == null ? "-" : p.substring(p.lastIndexOf('/') + 1);
            emit("acquired " + id + " " + node + " " + tReq + " " + tAcq);
            try {
                release.await();
            } catch (InterruptedException e) {
                // cancel of a granted request: return the lease like a release
            }
            Thread.interrupted();
            long tCall = now();
            try {
                semaphore.returnLease(lease);
                emit("released " + id + " " + tCall + " " + now());
            } catch (Exception e) {
                emit("failed " + id + " " + oneLine(e));
            }
            semHolds.remove(id);
        }
    }

    static final Map<String, SemHold> semHolds = new ConcurrentHashMap<>();

    /** acquire ID C PATH semaphore:N: one lease of the semaphore at PATH with maxLeases N. */
    static void startSemaphore(String[] f) {
        SemHold h;
        try {
            int n = Integer.parseInt(f[4].substring("semaphore:".length()));
            h = new SemHold(f[1], clients[Integer.parseInt(f[2])], f[3], n);
        } catch (RuntimeException e) {
            emit("failed " + f[1] + " " + oneLine(e));
            return;
        }
        semHolds.put(h.id, h);
        Thread t = new Thread(h::run, "semaphore-" + h.id);
        t.setDaemon(true);
        h.thread = t;
        t.start();
    }

    /** A running loop command. */
    static final class Loop {
        final String id;
        volatile boolean stopped;
        final List<Thread> threads = new ArrayList<>();

        Loop(String id) {
            this.id = id;
        }
    }

    static final Map<String, Hold> holds = new ConcurrentHashMap<>();
    static final Map<String, Loop> loops = new ConcurrentHashMap<>();
    static Client[] clients;

    public static void main(String[] args) throws Exception {
        lockPathGetter = InterProcessMutex.class.getDeclaredMethod("getLockPath");
        lockPathGetter.setAccessible(true);
        writer = new Thread(CuratorPeer::writeLines, "writer");
        writer.setDaemon(true);
        writer.start();
        // HOSTS is one connect string for every client, or one per client
        // separated by '|'.
        String[] hosts = args[0].split("\\|");
        int sessionMs = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int connectMs = Integer.parseInt(args[3]);
        clients = new Client[n];
        for (int i = 0; i < n; i++) {
            // RetryForever: a contender keeps contending through faults, as
            // a service would; the Go side cancels what it no longer wants.
            CuratorFramework fw = CuratorFrameworkFactory.builder()
                .connectString(hosts.length == 1 ? hosts[0] : hosts[i])
                .sessionTimeoutMs(sessionMs)
                // How long an operation waits for a connection before its
                // retry: at most the session timeout (Curator warns
                // otherwise, and a longer wait outlives the session).
                .connectionTimeoutMs(Math.min(connectMs, sessionMs))
                .retryPolicy(new RetryForever(100))
                .build();
            Client c = new Client(i, fw);
            clients[i] = c;
            fw.getConnectionStateListenable().addListener((cf, st) -> stateChanged(c, st));
            fw.start();
        }
        for (Client c : clients) {
            if (!c.fw.blockUntilConnected(connectMs, TimeUnit.MILLISECONDS)) {
                System.err.println("CuratorPeer: client " + c.index + " not connected to " + c.fw.getZookeeperClient().getCurrentConnectionString() + " after " + connectMs + " ms");
                System.exit(2);
            }
            c.session = c.readSession();
            emit("session " + c.index + " " + Long.toHexString(c.session));
        }
        emit("ready");

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" +");
            try {
                if (command(f)) {
                    break;
                }
            } catch (Exception e) {
                System.err.println("CuratorPeer: bad command \"" + line + "\": " + e);
            }
        }
        for (Client c : clients) {
            c.closing = true;
            c.fw.close();
        }
        exit(0);
    }

    /** Runs one command; true on quit. */
    static boolean command(String[] f) throws Exception {
        switch (f[0]) {
            case "acquire": {
                if (f[4].startsWith("semaphore:")) {
                    startSemaphore(f);
                    return false;
                }
                if (f[4].equals("latch")) {
                    startLatch(f);
                    return false;
                }
                Hold h;
                try {
                    Client c = clients[Integer.parseInt(f[2])];
                    h = new Hold(f[1], c, newLock(c.fw, f[3], f[4]));
                } catch (RuntimeException e) {
                    emit("failed " + f[1] + " " + oneLine(e));
                    return false;
                }
                holds.put(h.id, h);
                Thread t = new Thread(h::run, "hold-" + h.id);
                t.setDaemon(true);
                h.thread = t;
                t.start();
                return false;
            }
            case "release": {
                SemHold sh = semHolds.get(f[1]);
                if (sh != null) {
                    sh.release.countDown();
                    return false;
                }
                LatchHold lh = latches.get(f[1]);
                if (lh != null) {
                    lh.release.countDown();
                    return false;
                }
                Hold h = holds.get(f[1]);
                if (h != null) {
                    h.release.countDown();
                }
                return false;
            }
            case "cancel": {
                SemHold sh = semHolds.get(f[1]);
                if (sh != null) {
                    sh.cancelled = true;
                    sh.thread.interrupt();
                    return false;
                }
                LatchHold lh = latches.get(f[1]);
                if (lh != null) {
                    lh.cancelled = true;
                    lh.thread.interrupt();
                    return false;
                }
                Hold h = holds.get(f[1]);
                if (h != null) {
                    h.cancelled = true;
                    h.thread.interrupt();
                }
                return false;
            }
            case "loop":
                loop(f);
                return false;
            case "stop": {
                Loop l = loops.get(f[1]);
                if (l != null) {
                    l.stopped = true;
                    for (Thread t : l.threads) {
                        t.interrupt();
                    }
                }
                return false;
            }
            case "close": {
                Client c = clients[Integer.parseInt(f[1])];
                c.closing = true;
                c.fw.close();
                emit("closed " + c.index);
                return false;
            }
            case "quit":
                return true;
            default:
                throw new IllegalArgumentException("unknown command");
        }
    }

    static void stateChanged(Client c, ConnectionState st) {
        if (c.closing) {
            return;
        }
        long t = now();
        switch (st) {
            case SUSPENDED:
                c.noticed(t, false);
                emit("state " + c.index + " SUSPENDED " + t);
                break;
            case LOST:
                c.noticed(t, true);
                emit("state " + c.index + " LOST " + t);
                for (Hold h : c.held) {
                    if (c.held.remove(h)) {
                        emit("lost " + h.id + " " + t);
                    }
                }
                break;
            case RECONNECTED:
            case CONNECTED: {
                long s = c.readSession();
                if (s != 0 && s != c.session) {
                    c.session = s;
                    emit("session " + c.index + " " + Long.toHexString(s));
                }
                if (st == ConnectionState.RECONNECTED) {
                    emit("state " + c.index + " RECONNECTED " + t);
                }
                break;
            }
            default:
                break;
        }
    }

    /** loop ID PATH KIND CLIENTS DURATION_US CYCLES HOLD_US GIVEUP_PCT GIVEUP_WITHIN_US */
    static void loop(String[] f) {
        Loop l = new Loop(f[1]);
        String path = f[2];
        String kind = f[3];
        List<Client> cs = new ArrayList<>();
        if (f[4].equals("all")) {
            cs.addAll(List.of(clients));
        } else {
            for (String s : f[4].split(",")) {
                cs.add(clients[Integer.parseInt(s)]);
            }
        }
        long durationNs = Long.parseLong(f[5]) * 1000;
        long cycles = Long.parseLong(f[6]);
        long holdNs = Long.parseLong(f[7]) * 1000;
        int giveUpPct = Integer.parseInt(f[8]);
        long withinNs = Long.parseLong(f[9]) * 1000;
        long deadline = durationNs > 0 ? System.nanoTime() + durationNs : Long.MAX_VALUE;
        CountDownLatch left = new CountDownLatch(cs.size());
        loops.put(l.id, l);
        for (Client c : cs) {
            InterProcessMutex lock = newLock(c.fw, path, kind);
            Thread t = new Thread(() -> {
                try {
                    contend(l, c, lock, deadline, cycles, holdNs, giveUpPct, withinNs);
                } finally {
                    left.countDown();
                }
            }, "loop-" + l.id + "-" + c.index);
            t.setDaemon(true);
            l.threads.add(t);
        }
        Thread done = new Thread(() -> {
            try {
                left.await();
            } catch (InterruptedException e) {
                return;
            }
            loops.remove(l.id);
            emit("loopdone " + l.id);
        }, "loopdone-" + l.id);
        done.setDaemon(true);
        for (Thread t : l.threads) {
            t.start();
        }
        done.start();
    }

    /** One client's cycles of a loop: one lock object, reused as an application would. */
    static void contend(Loop l, Client c, InterProcessMutex lock, long deadline, long cycles, long holdNs, int giveUpPct, long withinNs) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (long n = 0; (cycles <= 0 || n < cycles) && System.nanoTime() < deadline && !l.stopped; n++) {
            boolean giveUp = giveUpPct > 0 && rnd.nextInt(100) < giveUpPct;
            long waitNs = giveUp ? rnd.nextLong(withinNs + 1) : 0;
            long session = c.session;
            long tReq = now();
            boolean got;
            try {
                got = giveUp ? lock.acquire(waitNs, TimeUnit.NANOSECONDS) : acquireForever(lock);
            } catch (Exception e) {
                if (l.stopped) {
                    return;
                }
                long t = now();
                emitCycle(l, c, false, false, "-", tReq, t, 0, 0, 0, false, session, "acquire: " + oneLine(e));
                pause(100_000_000L); // do not spin on a broken connection
                continue;
            }
            long tAcq = now();
            if (!got) {
                emitCycle(l, c, false, true, "-", tReq, tAcq, 0, 0, 0, false, session, "-");
                continue;
            }
            c.beginHold();
            String node = nodeOf(lock);
            pause(holdNs);
            long tCall = now();
            long[] notice = c.endHold();
            // A stop that cut the hold short must not also cut the release.
            boolean interrupted = Thread.interrupted();
            String err = "-";
            try {
                lock.release();
            } catch (Exception e) {
                err = "release: " + oneLine(e);
            }
            long tRet = now();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            emitCycle(l, c, true, false, node, tReq, tAcq, tCall, tRet, notice[0], notice[1] == 1, session, err);
        }
    }

    static boolean acquireForever(InterProcessMutex lock) throws Exception {
        lock.acquire();
        return true;
    }

    static void emitCycle(Loop l, Client c, boolean held, boolean gaveUp, String node, long tReq, long tAcq,
                          long tCall, long tRet, long tNotice, boolean lost, long session, String err) {
        emit("cycle " + l.id + " " + c.index + " " + (held ? 1 : 0) + " " + (gaveUp ? 1 : 0) + " " + node + " "
            + tReq + " " + tAcq + " " + tCall + " " + tRet + " " + tNotice + " " + (lost ? 1 : 0) + " "
            + Long.toHexString(session) + " " + err);
    }

    /** Sleeps ns, cut short by an interrupt (a stopped loop). */
    static void pause(long ns) {
        long end = System.nanoTime() + ns;
        for (long left = ns; left > 0 && !Thread.currentThread().isInterrupted(); left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
