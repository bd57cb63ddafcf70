package verdict

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestJSON: the fields a script reads, for a stuck queue behind a silent
// holder, as `zklock why -o json` writes them.
func TestJSON(t *testing.T) {
	snap := snapshot(true, built("/locks/a", true, chain(3, 3)...))
	v := Judge(snap, "/locks/a", Options{Liveness: silentFor(1, 14*time.Second), Fails: failsCheck})
	b, err := json.Marshal(v.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema  int    `json:"schema"`
		State   string `json:"state"`
		Failing bool   `json:"failing"`
		Summary string `json:"summary"`
		Holders []struct {
			Node        string   `json:"node"`
			Session     string   `json:"session"`
			SinceBound  string   `json:"since_bound"`
			HeldS       float64  `json:"held_s"`
			ClientAlive string   `json:"client_alive"`
			SilentS     *float64 `json:"silent_s"`
			ExpiresInS  *float64 `json:"expires_in_s"`
		} `json:"holders"`
		Waiters []struct {
			Node    string `json:"node"`
			Watch   string `json:"watch"`
			Wakes   string `json:"wakes"`
			Reason  string `json:"reason"`
			WaitsOn string `json:"waits_on"`
		} `json:"waiters"`
		Next struct {
			WhenGone []string `json:"when_gone"`
			Holds    []string `json:"holds"`
		} `json:"next"`
		Warnings []struct {
			Code string `json:"code"`
		} `json:"warnings"`
		Act struct {
			Command string `json:"command"`
			Why     string `json:"why"`
			Node    string `json:"node"`
		} `json:"act"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != WhySchema || got.State != "stuck" || !got.Failing || got.Summary != v.Headline() {
		t.Errorf("head: %s", b)
	}
	if len(got.Holders) != 1 || got.Holders[0].Node != lockName(0) || got.Holders[0].Session != "0x1" ||
		got.Holders[0].SinceBound != "earliest" || got.Holders[0].HeldS != 5 || got.Holders[0].ClientAlive != "silent" ||
		got.Holders[0].SilentS == nil || *got.Holders[0].SilentS != 14 || got.Holders[0].ExpiresInS == nil || *got.Holders[0].ExpiresInS != 6 {
		t.Errorf("holders: %s", b)
	}
	wantWaiters := []string{"lock-0000000000 verified yes watch-verified", "lock-0000000001 missing never missing-watch"}
	var waiters []string
	for _, w := range got.Waiters {
		waiters = append(waiters, strings.Join([]string{w.WaitsOn, w.Watch, w.Wakes, w.Reason}, " "))
	}
	if !reflect.DeepEqual(waiters, wantWaiters) {
		t.Errorf("waiters %q, want %q", waiters, wantWaiters)
	}
	if !reflect.DeepEqual(got.Next.WhenGone, []string{lockName(0)}) || !reflect.DeepEqual(got.Next.Holds, []string{lockName(1)}) {
		t.Errorf("next: %s", b)
	}
	if len(got.Warnings) != 1 || got.Warnings[0].Code != "missing-watch" {
		t.Errorf("warnings: %s", b)
	}
	// The waiter that never wakes comes before the silent holder.
	if got.Act.Command != "zklock release --force /locks/a/lock-0000000002" || got.Act.Why != "never-wakes" || got.Act.Node != lockName(2) {
		t.Errorf("act: %s", b)
	}
}

// TestJSONEmpty: a free lock writes [] and null, never a missing key.
func TestJSONEmpty(t *testing.T) {
	b, err := json.Marshal(Judge(snapshot(true, built("/locks/a", true)), "/locks/a", Options{}).JSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{`"holders":[]`, `"waiters":[]`, `"next":null`, `"warnings":[]`, `"deadlocks":[]`, `"act":null`, `"state":"free"`, `"exists":true`} {
		if !strings.Contains(string(b), part) {
			t.Errorf("lacks %s: %s", part, b)
		}
	}
}

// TestSanitized: a node name full of terminal escapes reaches neither
// the text nor the JSON raw, and the command to act quotes it.
func TestSanitized(t *testing.T) {
	evil := "x-\x1b]0;owned\x07'-0000000001"
	cs := []contender{{lockName(0), 1, nil}, {evil, 2, nil}}
	v := Judge(snapshot(true, built("/locks/\x1b[31mred", true, cs...)), "/locks/\x1b[31mred", Options{Fails: failsCheck})
	if v.State != StateStuck || v.Act == nil {
		t.Fatalf("state %s act %+v\n%s", v.State, v.Act, v.Text())
	}
	b, _ := json.Marshal(v.JSON())
	for name, out := range map[string]string{"text": v.Text(), "json": string(b)} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s holds a raw escape: %q", name, out)
		}
	}
	if want := `zklock release --force '/locks/\x1b[31mred/x-\x1b]0;owned\x07'\''-0000000001'`; v.Act.Command != want {
		t.Errorf("act %s, want %s", v.Act.Command, want)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/locks/a/lock-0000000001": "/locks/a/lock-0000000001",
		"/locks/my lock":           "'/locks/my lock'",
		"/locks/it's":              `'/locks/it'\''s'`,
		"/locks/$HOME":             "'/locks/$HOME'",
		"":                         "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
