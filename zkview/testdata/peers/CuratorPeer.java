import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.RetryNTimes;

/**
 * A Curator 5.4 lock client for zkview's tests.
 *
 * Usage: CuratorPeer HOSTS SESSION_TIMEOUT_MS CLIENTS. Prints "session I 0xID"
 * for each client, then reads commands:
 *   acquire CLIENT ID PATH mutex|read|write  acquire in a thread; prints "acquired ID"
 *   release ID                               prints "released ID"
 *   quit
 * Curator's locks belong to the thread that took them, so each lock lives
 * in its own thread, which releases it when told.
 */
public class CuratorPeer {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[2]);
        CuratorFramework[] clients = new CuratorFramework[n];
        for (int i = 0; i < n; i++) {
            clients[i] = CuratorFrameworkFactory.newClient(args[0], Integer.parseInt(args[1]), 5000, new RetryNTimes(3, 100));
            clients[i].start();
            clients[i].blockUntilConnected();
            System.out.printf("session %d 0x%x%n", i, clients[i].getZookeeperClient().getZooKeeper().getSessionId());
        }
        System.out.flush();
        Map<String, CountDownLatch> release = new HashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] p = line.trim().split(" ");
            if (p[0].equals("acquire")) {
                CuratorFramework c = clients[Integer.parseInt(p[1])];
                String id = p[2];
                InterProcessLock lock;
                if (p[4].equals("mutex")) {
                    lock = new InterProcessMutex(c, p[3]);
                } else {
                    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c, p[3]);
                    lock = p[4].equals("read") ? rw.readLock() : rw.writeLock();
                }
                CountDownLatch done = new CountDownLatch(1);
                release.put(id, done);
                Thread t = new Thread(() -> {
                    try {
                        lock.acquire();
                        synchronized (System.out) { System.out.println("acquired " + id); System.out.flush(); }
                        done.await();
                        lock.release();
                        synchronized (System.out) { System.out.println("released " + id); System.out.flush(); }
                    } catch (Exception e) {
                        synchronized (System.out) { System.out.println("error " + id + " " + e); System.out.flush(); }
                    }
                });
                t.setDaemon(true);
                t.start();
            } else if (p[0].equals("release")) {
                release.get(p[1]).countDown();
            } else if (p[0].equals("quit")) {
                break;
            }
        }
        for (CuratorFramework c : clients) {
            c.close();
        }
    }
}
