package bench

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestProcessTree starts a child and finds it below this process.
func TestProcessTree(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system: the memory watch reads it")
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	tree := processTree(os.Getpid())
	if len(tree) == 0 || tree[0] != os.Getpid() {
		t.Fatalf("tree %v does not start at this process %d", tree, os.Getpid())
	}
	if !slices.Contains(tree, cmd.Process.Pid) {
		t.Fatalf("tree %v lacks the child %d", tree, cmd.Process.Pid)
	}
	if processTree(-1) != nil {
		t.Fatal("a process that does not exist has a tree")
	}
}

// TestWatchMemorySeesAllocation watches this process while it touches
// 64 MiB and checks the peak covers it.
func TestWatchMemorySeesAllocation(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no /proc/self/smaps_rollup on this system: the memory watch reads it")
	}
	pid := os.Getpid()
	m := watchMemory(func() []int { return []int{pid} })
	if m == nil {
		t.Fatal("no watch of this process")
	}
	const n = 64 << 20
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	peak := m.Stop()
	if peak < 64 {
		t.Fatalf("peak %.1f MiB after touching 64 MiB", peak)
	}
	_ = b[n-1]
	if watchMemory(func() []int { return nil }) != nil {
		t.Fatal("a watch of no processes")
	}
}
