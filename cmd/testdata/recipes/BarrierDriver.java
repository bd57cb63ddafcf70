// BarrierDriver sets a Curator 5 DistributedBarrier under a base path with
// the stock jars, for cmd's TestLsSingleBarriers: one client sets it, two
// others wait on it. It prints "sessions <waiter> <waiter>" (hex), then
// "ready"; on the line "remove" it removes the barrier and each waiter
// prints "passed" as it goes through. It exits when its stdin closes.
// Usage: java BarrierDriver <connect string> <base path>
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.retry.RetryOneTime;

public class BarrierDriver {
  static CuratorFramework client(String cs) throws Exception {
    CuratorFramework c = CuratorFrameworkFactory.newClient(cs, new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    return c;
  }

  static String session(CuratorFramework c) throws Exception {
    return Long.toHexString(c.getZookeeperClient().getZooKeeper().getSessionId());
  }

  public static void main(String[] a) throws Exception {
    String cs = a[0], path = a[1] + "/cbarrier";
    CuratorFramework setter = client(cs), w1 = client(cs), w2 = client(cs);
    // setBarrier: the node, persistent, with the client's default data.
    new DistributedBarrier(setter, path).setBarrier();
    ExecutorService ex = Executors.newCachedThreadPool(r -> { Thread t = new Thread(r); t.setDaemon(true); return t; });
    for (CuratorFramework c : new CuratorFramework[] {w1, w2}) {
      ex.submit(() -> {
        new DistributedBarrier(c, path).waitOnBarrier();
        System.out.println("passed");
        System.out.flush();
        return null;
      });
    }
    System.out.println("sessions " + session(w1) + " " + session(w2));
    System.out.println("ready");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("remove")) new DistributedBarrier(setter, path).removeBarrier();
    }
    System.exit(0);
  }
}
