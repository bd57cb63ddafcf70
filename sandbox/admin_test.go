package sandbox_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// adminGet fetches one AdminServer command's JSON.
func adminGet(t *testing.T, client *http.Client, base, command string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/commands/"+command, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", command, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", command, resp.Status, err)
	}
	return string(body)
}

// TestAdminServerAsDeployed starts an ensemble as production runs it
// (ZooKeeper's default whitelist, the AdminServer on) and checks that
// every member answers the AdminServer on its own loopback port, srvr
// still answers, and cons is refused.
func TestAdminServerAsDeployed(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, FourLetterWords: sandbox.ZooKeeperDefaultWords,
		AdminServer: &sandbox.AdminOptions{}})
	urls := c.AdminURLs()
	if len(urls) != 3 {
		t.Fatalf("AdminURLs() = %v", urls)
	}
	seen := map[string]bool{}
	for i, m := range c.Members() {
		if !strings.HasPrefix(urls[i], "http://127.0.0.1:") || seen[urls[i]] || m.AdminURL() != urls[i] {
			t.Errorf("member %d: AdminURL %q (all: %v)", m.ID(), m.AdminURL(), urls)
		}
		seen[urls[i]] = true
		if got := adminGet(t, http.DefaultClient, urls[i], "connections"); !strings.Contains(got, `"connections"`) {
			t.Errorf("member %d: connections = %s", m.ID(), got)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		_, err := fourletter.Ask(ctx, m.Addr(), "cons")
		cancel()
		if !errors.Is(err, fourletter.ErrRefused) {
			t.Errorf("member %d: cons under the default whitelist: %v, want refused", m.ID(), err)
		}
	}
}

// TestAdminServerTLS serves the AdminServer over https only: it answers
// a client trusting the cluster's CA and refuses plain http.
func TestAdminServerTLS(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{TLS: &sandbox.TLSOptions{}, AdminServer: &sandbox.AdminOptions{TLS: true}})
	url := c.Members()[0].AdminURL()
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("AdminURL() = %q, want https", url)
	}
	cfg, err := c.TLS().ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	defer client.CloseIdleConnections()
	if got := adminGet(t, client, url, "dump"); !strings.Contains(got, "expiry_time_to_session_ids") {
		t.Errorf("dump over https = %s", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.Members()[0].AdminAddr()+"/commands/dump", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain http answered %s on a https-only AdminServer", resp.Status)
		}
	}
}

// TestAdminServerNeedsTLSFiles: AdminServer over TLS without Options.TLS
// is refused before anything starts.
func TestAdminServerNeedsTLSFiles(t *testing.T) {
	sandboxtest.Need(t) // Start finds Java and ZooKeeper before it reads the options
	_, err := sandbox.Start(t.Context(), sandbox.Options{AdminServer: &sandbox.AdminOptions{TLS: true}})
	if !errors.Is(err, sandbox.ErrOptions) {
		t.Fatalf("Start = %v, want ErrOptions", err)
	}
}
