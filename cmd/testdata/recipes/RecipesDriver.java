// RecipesDriver builds Curator 5's recipes that are no lock under a base
// path, with the stock jars, for cmd's TestLsLibraryRecipes; it prints
// "ready" once all are in place and exits when its stdin closes.
// Usage: java RecipesDriver <connect string> <base path>
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.retry.RetryOneTime;

public class RecipesDriver {
  static CuratorFramework client(String cs) throws Exception {
    CuratorFramework c = CuratorFrameworkFactory.newClient(cs, new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    return c;
  }

  public static void main(String[] a) throws Exception {
    String cs = a[0], base = a[1];
    CuratorFramework c1 = client(cs), c2 = client(cs);
    ExecutorService ex = Executors.newCachedThreadPool(r -> { Thread t = new Thread(r); t.setDaemon(true); return t; });
    // LeaderSelector with ids: c1 first, so it leads.
    for (CuratorFramework c : new CuratorFramework[] {c1, c2}) {
      LeaderSelector s = new LeaderSelector(c, base + "/selector", new LeaderSelectorListenerAdapter() {
        public void takeLeadership(CuratorFramework cf) throws Exception { Thread.sleep(Long.MAX_VALUE); }
      });
      s.setId(c == c1 ? "sel-a" : "sel-b");
      s.start();
      while (s.getParticipants().size() < (c == c1 ? 1 : 2)) Thread.sleep(20);
    }
    // The look-alike: a plain InterProcessMutex (the client's address as data).
    new InterProcessMutex(c1, base + "/mutex").acquire();
    // DistributedDoubleBarrier: two of three enter.
    for (CuratorFramework c : new CuratorFramework[] {c1, c2}) {
      ex.submit(() -> { new DistributedDoubleBarrier(c, base + "/dbarrier", 3).enter(); return null; });
    }
    QueueSerializer<String> ser = new QueueSerializer<String>() {
      public byte[] serialize(String s) { return s.getBytes(); }
      public String deserialize(byte[] b) { return new String(b); }
    };
    DistributedQueue<String> q = QueueBuilder.builder(c1, null, ser, base + "/dqueue").buildQueue();
    q.start();
    for (String item : new String[] {"job-1", "job-2", "job-3"}) q.put(item);
    GroupMember g1 = new GroupMember(c1, base + "/group", "member-a", "payload-a".getBytes());
    GroupMember g2 = new GroupMember(c2, base + "/group", "member-b", "payload-b".getBytes());
    g1.start();
    g2.start();
    SharedCount count = new SharedCount(c1, base + "/count", 7);
    count.start();
    count.setCount(42);
    while (c1.getChildren().forPath(base + "/dbarrier").size() < 2
        || c1.checkExists().forPath(base + "/group/member-b") == null
        || c1.checkExists().forPath(base + "/group/member-a") == null) Thread.sleep(20);
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() >= 0) {}
    System.exit(0);
  }
}
