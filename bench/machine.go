package main

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/zklock/zklock/sandbox"
)

// machineInfo is what the report's header says about the machine and the
// versions of everything that ran.
type machineInfo struct {
	CPU, Cores, Memory, Kernel, OS string
	LoadStart, LoadEnd             string
	Go, Java, ZooKeeper            string
	Curator, Kazoo, GoZK           string
}

func readMachine(ctx context.Context) machineInfo {
	m := machineInfo{Cores: fmt.Sprint(runtime.NumCPU()), Go: runtime.Version()}
	m.CPU = firstField("/proc/cpuinfo", "model name")
	m.Memory = firstField("/proc/meminfo", "MemTotal")
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.OS = strings.Trim(firstField("/etc/os-release", "PRETTY_NAME="), `"`)
	m.LoadStart = loadAvg()
	if inst, err := sandbox.Find(); err == nil {
		if out, err := exec.CommandContext(ctx, inst.Java, "-version").CombinedOutput(); err == nil {
			m.Java, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		}
	}
	m.Curator = jarVersion("/usr/share/java/curator-recipes.jar")
	if out, err := exec.CommandContext(ctx, "/usr/bin/python3", "-c", "import kazoo.version; print(kazoo.version.__version__)").Output(); err == nil {
		m.Kazoo = strings.TrimSpace(string(out))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/zklock/zklock/third_party/zk" {
				m.GoZK = d.Version
			}
		}
	}
	return m
}

// firstField is the value after key on the first line of file that has it.
func firstField(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			return strings.TrimSpace(strings.TrimLeft(rest, " \t:"))
		}
	}
	return ""
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func jarVersion(path string) string {
	z, err := zip.OpenReader(path)
	if err != nil {
		return ""
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "META-INF/MANIFEST.MF" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return ""
		}
		defer rc.Close()
		sc := bufio.NewScanner(rc)
		for sc.Scan() {
			for _, k := range []string{"Bundle-Version:", "Implementation-Version:"} {
				if v, ok := strings.CutPrefix(sc.Text(), k); ok {
					return strings.TrimSpace(v)
				}
			}
		}
	}
	// Debian's jars carry no version in the manifest; a copy beside it is
	// named after it (curator-recipes.jar and curator-recipes-5.4.0.jar).
	stem := strings.TrimSuffix(path, ".jar") + "-"
	matches, _ := filepath.Glob(stem + "[0-9]*.jar")
	if len(matches) > 0 {
		return strings.TrimSuffix(strings.TrimPrefix(matches[len(matches)-1], stem), ".jar")
	}
	return ""
}
