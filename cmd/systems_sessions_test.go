package cmd

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/ui"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/layouts"
)

// One tree holding every system's layout, each participant in a session of
// its own, as the systems' sources write them (the files are cited by the
// plant helpers and in systems/*.go): what `sessions` and the console
// must name.

// sysSession is one participant's session and the identity its system
// gives it ("" where the system names none: a Flink follower).
type sysSession struct {
	conn     *zk.Conn
	identity string
}

// allSystems is a planted tree: root, the participants' sessions, and
// per lock path below root the system's label and its participants'
// identities in queue order.
type allSystems struct {
	root     string
	sessions []sysSession
	labels   map[string]string
	idents   map[string][]string
}

// conns opens n sessions on the shared server.
func conns(t *testing.T, n int) []*zk.Conn {
	t.Helper()
	cs := make([]*zk.Conn, n)
	for i := range cs {
		cs[i] = testConn(t)
	}
	return cs
}

// plantAllSystems plants Solr, Kafka, HDFS, YARN (both electors), HBase,
// ClickHouse, Druid, Storm, Flink, NiFi, Pulsar, Helix, Mesos and Marathon
// under one root, each participant in a session of its own (HBase's and
// ClickHouse's plants give one session several nodes, as their servers
// do: the session is named by its first, in path order).
func plantAllSystems(t *testing.T) *allSystems {
	t.Helper()
	a := &allSystems{root: testPath(t), labels: map[string]string{}, idents: map[string][]string{}}
	add := func(rel, label string, cs []*zk.Conn, ids ...string) {
		a.labels[rel], a.idents[rel] = label, ids
		for i, c := range cs {
			a.sessions = append(a.sessions, sysSession{c, ids[i]})
		}
	}
	r := a.root
	solr := conns(t, 3)
	plantSolr(t, r+"/solr", solr, 0)
	add("/solr/overseer_elect/election", "solr overseer", solr, "10.0.0.1:8983_solr", "10.0.0.2:8983_solr", "10.0.0.3:8983_solr")
	kafka := conns(t, 3)
	plantKafka(t, r+"/kafka", kafka, 1) // broker 1's session made /controller
	add("/kafka/controller", "kafka controller", kafka[:1], "broker 1")
	hdfs := conns(t, 1)
	plantHadoop(t, r+"/hadoop-ha/ns1", hdfs[0], "nn1", "nn1")
	add("/hadoop-ha/ns1", "hdfs ns1", hdfs, "nn1 nn1.example:8020")
	yarn := conns(t, 1)
	create(t, yarn[0], r+"/yarn-leader-election/yc1/ActiveStandbyElectorLock", activeRMInfo("yc1", "rm1"), zk.FlagEphemeral)
	create(t, yarn[0], r+"/yarn-leader-election/yc1/ActiveBreadCrumb", activeRMInfo("yc1", "rm1"), 0)
	add("/yarn-leader-election/yc1", "yarn yc1", yarn, "rm1")
	yarn2 := conns(t, 2)
	plantCurator(t, yarn2, r+"/yarn2/yarn-leader-election/yc2", "latch", "rm3", "rm4")
	add("/yarn2/yarn-leader-election/yc2", "yarn yc2", yarn2, "rm3", "rm4")
	hbase := conns(t, 3)
	plantHBase(t, r+"/hbase", hbase)
	add("/hbase/master", "hbase master", hbase[:2], "hm1.example,16000,1700000000001", "hm2.example,16000,1700000000002")
	a.sessions = append(a.sessions, sysSession{hbase[2], "hm1.example,16000,1700000000000 alter"})
	a.labels["/hbase/table-lock/orders"] = "hbase table orders"
	a.idents["/hbase/table-lock/orders"] = []string{"rs1.example,16000,1700000000000 scan",
		"rs2.example,16000,1700000000000 scan", "hm1.example,16000,1700000000000 alter"}
	ch := conns(t, 2)
	plantClickHouse(t, r+"/clickhouse", ch)
	add("/clickhouse/tables/01/hits/leader_election", "clickhouse hits", ch, "replica1", "replica2")
	plantOwnSessions(t, a, add)
	return a
}

// plantOwnSessions plants the Curator elections, Pulsar, Helix and Mesos
// of plantAllSystems, each participant in a session of its own.
func plantOwnSessions(t *testing.T, a *allSystems, add func(rel, label string, cs []*zk.Conn, ids ...string)) {
	t.Helper()
	r := a.root
	for _, e := range []struct {
		rel, label, marker string
		ids                []string
	}{
		{"/druid/coordinator/_COORDINATOR", "druid coordinator", "latch", []string{"http://c1.example:8081", "http://c2.example:8081"}},
		{"/druid/overlord/_OVERLORD", "druid overlord", "latch", []string{"http://o1.example:8090"}},
		{"/storm/leader-lock", "storm nimbus", "latch", []string{"nimbus1.example:6627", "nimbus2.example:6627"}},
		{"/nifi/leaders/Cluster Coordinator", "nifi cluster coordinator", "lock", []string{"nifi1.example:11443", "nifi2.example:11443"}},
		{"/marathon/leader-curator", "marathon leader", "latch", []string{"marathon1.example:8080", "marathon2.example:8080"}},
	} {
		cs := conns(t, len(e.ids))
		plantCurator(t, cs, r+e.rel, e.marker, e.ids...)
		add(e.rel, e.label, cs, e.ids...)
	}
	flink := conns(t, 2)
	plantCurator(t, flink, r+"/flink/fc1/leader/latch", "latch", "", "")
	create(t, flink[0], r+"/flink/fc1/leader/rest_server/connection_info", flinkInfo("http://jm1.example:8081"), zk.FlagEphemeral)
	add("/flink/fc1/leader/latch", "flink fc1", flink, "http://jm1.example:8081", "")
	pulsar := conns(t, 1)
	create(t, pulsar[0], r+"/pulsar/loadbalance/leader", pulsarLeader("b1.example:8080"), zk.FlagEphemeral)
	add("/pulsar/loadbalance/leader", "pulsar load balancer", pulsar, "b1.example:8080")
	helix := conns(t, 1)
	create(t, helix[0], r+"/helix/cl1/CONTROLLER/LEADER", helixLeader("ctrl1.example_9000", helix[0].SessionID()), zk.FlagEphemeral)
	add("/helix/cl1/CONTROLLER/LEADER", "helix controller cl1", helix, "ctrl1.example_9000")
	mesos := conns(t, 2)
	for i, h := range []string{"m1.example", "m2.example"} {
		create(t, mesos[i], r+"/mesos/json.info_", mesosMaster(h), zk.FlagEphemeral|zk.FlagSequence)
	}
	add("/mesos", "mesos master", mesos, "m1.example:5050", "m2.example:5050")
}

// TestSessionsSystems: over one root holding every system's layout,
// `sessions --json` names each participant's session by the identity its
// system gives it (a Flink follower, which publishes nothing, by none),
// and each of its nodes likewise, HBase's table lock nodes by their kind
// (read, write); the text names them in its CLIENT column. Then the
// console, fed by a live Watcher of the same tree (checkConsoleSystems).
func TestSessionsSystems(t *testing.T) {
	a := plantAllSystems(t)
	js, errOut, code := sessionsJSON(t, "--root", a.root)
	if code != 0 {
		t.Fatalf("sessions --json: code %d, stderr %q", code, errOut)
	}
	got := map[string]sessions.JSONSession{}
	for _, s := range js.Sessions {
		got[s.Session] = s
	}
	for _, s := range a.sessions {
		id := model.SessionHex(s.conn.SessionID())
		js, ok := got[id]
		if !ok {
			t.Errorf("session %s (%q) not listed", id, s.identity)
			continue
		}
		if js.Identity != s.identity {
			t.Errorf("session %s: identity %q, want %q", id, js.Identity, s.identity)
		}
		nodes := append(js.Holds, js.Waits...)
		if len(nodes) == 0 {
			t.Errorf("session %s (%q) holds and waits on nothing", id, s.identity)
		}
		// Its node in that system says the same.
		if s.identity != "" && !slices.ContainsFunc(nodes, func(n sessions.JSONSessionNode) bool { return n.Identity == s.identity }) {
			t.Errorf("session %s: no node with identity %q: %+v", id, s.identity, nodes)
		}
	}
	// HBase's table lock: its readers and its writer as such.
	kinds := map[string]string{}
	for _, s := range got {
		for _, n := range append(s.Holds, s.Waits...) {
			if n.Path == a.root+"/hbase/table-lock/orders" {
				kinds[n.Node[:strings.IndexByte(n.Node, '-')]] += n.Kind + " "
			}
		}
	}
	if kinds["read"] != "read read " || kinds["write"] != "write " {
		t.Errorf("hbase table lock kinds by node name: %q", kinds)
	}
	if t.Failed() {
		for id, s := range got {
			t.Logf("%s %q holds %+v waits %+v", id, s.Identity, s.Holds, s.Waits)
		}
	}

	out, errOut, code := runBinary(t, nil, serversFlag(t), "sessions", "--root", a.root)
	if code != 0 {
		t.Fatalf("sessions: code %d, stderr %q", code, errOut)
	}
	for _, s := range a.sessions {
		id := model.SessionHex(s.conn.SessionID())
		if s.identity != "" && !hasLine(out, id, s.identity) {
			t.Errorf("sessions text: no line names %s %q:\n%s", id, s.identity, out)
		}
	}
	checkConsoleSystems(t, a)
}

// hasLine reports whether one line of text holds every part.
func hasLine(text string, parts ...string) bool {
	for _, l := range strings.Split(text, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// consoleDriver runs the console model as Bubble Tea's loop does, without
// a terminal: commands run on goroutines and their messages come back to
// Update in the test's goroutine; keys are applied in between.
type consoleDriver struct {
	m    tea.Model
	msgs chan tea.Msg
	done chan struct{}
}

// driveConsole starts the console of opts at w x h columns and rows.
func driveConsole(t *testing.T, opts ui.Options, w, h int) *consoleDriver {
	t.Helper()
	d := &consoleDriver{m: ui.New(opts), msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	d.run(d.m.Init())
	d.apply(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

// run runs cmd (each of a batch's) and hands its message to the loop.
func (d *consoleDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.run(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

// apply hands msg to Update and runs the command it returns.
func (d *consoleDriver) apply(msg tea.Msg) {
	var cmd tea.Cmd
	d.m, cmd = d.m.Update(msg)
	d.run(cmd)
}

// view is the screen as plain text.
func (d *consoleDriver) view() string { return ansi.Strip(d.m.View()) }

// waitView applies the messages that come until cond holds for the
// screen, failing after limit with the last screen.
func (d *consoleDriver) waitView(t *testing.T, limit time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		if v := d.view(); cond(v) {
			return v
		}
		select {
		case msg := <-d.msgs:
			d.apply(msg)
		case <-deadline.C:
			t.Fatalf("after %v, no %s on screen:\n%s", limit, what, d.view())
		}
	}
}

// listPane is the lock list's side of a screen: each line up to the
// border between the two panes.
func listPane(view string) string {
	var b strings.Builder
	for _, l := range strings.Split(view, "\n") {
		left, _, _ := strings.Cut(l, "││")
		b.WriteString(left + "\n")
	}
	return b.String()
}

// queueScreens walks the lock list row by row from the top and returns the screen for
// each lock path among want the queue pane showed.
func queueScreens(d *consoleDriver, root string, want map[string]string) map[string]string {
	const rows = 40 // more than the lock list holds
	screens := map[string]string{}
	for range rows {
		d.apply(tea.KeyMsg{Type: tea.KeyUp}) // from the top
	}
	for range rows {
		v := d.view()
		for rel := range want {
			if strings.Contains(v, "╭─ "+root+rel+" · ") {
				screens[rel] = v
			}
		}
		d.apply(tea.KeyMsg{Type: tea.KeyDown})
	}
	return screens
}

// checkConsoleSystems: the console, fed by a real Watcher of a's tree,
// names each system in its lock list, and titles the queue pane with the
// system and shows each participant's identity (IDENTITY); the HBase
// table lock is a read/write lock there too.
func checkConsoleSystems(t *testing.T, a *allSystems) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := zkview.Watch(ctx, testSession(t), zkview.Options{Roots: []string{a.root}, Systems: layouts.New})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	d := driveConsole(t, ui.Options{Updates: w.Updates(), ReadOnly: true}, 220, 60)
	d.waitView(t, 30*time.Second, "every system named in the lock list", func(v string) bool {
		list := listPane(v)
		for _, label := range a.labels {
			if !strings.Contains(list, " "+label+" ") {
				return false
			}
		}
		return true
	})
	screens := queueScreens(d, a.root, a.labels)
	for rel, label := range a.labels {
		v, ok := screens[rel]
		if !ok {
			t.Errorf("%s: never shown in the queue pane", rel)
			continue
		}
		if !strings.Contains(v, "╭─ "+a.root+rel+" · "+label+" · ") || !strings.Contains(v, " IDENTITY ") {
			t.Errorf("%s: the queue pane is not titled %q or has no IDENTITY:\n%s", rel, label, v)
		}
		for _, id := range a.idents[rel] {
			// IDENTITY is at most 30 columns wide: a longer one is cut.
			if cut := id[:min(len(id), 24)]; !strings.Contains(v, " "+cut) {
				t.Errorf("%s: identity %q not on screen:\n%s", rel, id, v)
			}
		}
	}
	if v := screens["/hbase/table-lock/orders"]; v != "" && (!strings.Contains(v, "· read/write ·") || !hasLine(v, " write ", "waiting")) {
		t.Errorf("the HBase table lock is not drawn as a read/write lock:\n%s", v)
	}
	checkConsoleFailover(t, a, d)
}

// checkConsoleFailover: Pulsar's leader and Flink's lose their sessions;
// Pulsar's next broker creates the leader node, Flink's next leader
// publishes its address: the console follows within a read of the
// systems' layouts (every 15 s).
func checkConsoleFailover(t *testing.T, a *allSystems, d *consoleDriver) {
	byIdentity := func(id string) *zk.Conn {
		i := slices.IndexFunc(a.sessions, func(s sysSession) bool { return s.identity == id })
		return a.sessions[i].conn
	}
	pulsar, flink := a.root+"/pulsar/loadbalance/leader", a.root+"/flink/fc1/leader"
	next, follower := testConn(t), byIdentity("") // Flink's follower names none yet
	byIdentity("b1.example:8080").Close()
	byIdentity("http://jm1.example:8081").Close()
	waitGone(t, next, pulsar)
	waitGone(t, next, flink+"/rest_server/connection_info")
	create(t, next, pulsar, pulsarLeader("b2.example:8080"), zk.FlagEphemeral)
	create(t, follower, flink+"/rest_server/connection_info", flinkInfo("http://jm2.example:8081"), zk.FlagEphemeral)
	d.waitView(t, 40*time.Second, "Pulsar's new leader", func(v string) bool {
		return hasLine(listPane(v), "pulsar load balancer", "b2.exampl")
	})
	want := map[string]string{"/flink/fc1/leader/latch": "flink fc1", "/pulsar/loadbalance/leader": "pulsar load balancer"}
	flinkOK := func(v string) bool {
		return hasLine(v, "LEADER", "http://jm2.example:8081") && !strings.Contains(v, "jm1.example")
	}
	pulsarOK := func(v string) bool { return hasLine(v, "b2.example:8080") && !strings.Contains(v, "b1.example") }
	// Each system's coordination is read again on its own (live): Flink's
	// may come after Pulsar's.
	deadline := time.Now().Add(40 * time.Second)
	for {
		screens := queueScreens(d, a.root, want)
		fv, pv := screens["/flink/fc1/leader/latch"], screens["/pulsar/loadbalance/leader"]
		if flinkOK(fv) && pulsarOK(pv) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after 40s, the new leaders not on screen:\nflink:\n%s\npulsar:\n%s", fv, pv)
			return
		}
		d.pump(200 * time.Millisecond)
	}
}

// pump applies the messages that come within dur.
func (d *consoleDriver) pump(dur time.Duration) {
	stop := time.NewTimer(dur)
	defer stop.Stop()
	for {
		select {
		case msg := <-d.msgs:
			d.apply(msg)
		case <-stop.C:
			return
		}
	}
}
