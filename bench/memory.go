package bench

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Peak memory of a server during one timed run.
//
// A server's memory is the sum of the proportional set size (Pss, from
// /proc/PID/smaps_rollup) of every process it consists of: kvsql is one
// process; PostgreSQL is the postmaster and all its children (backends,
// checkpointer, walwriter, ...). Pss charges each shared page to the
// processes mapping it in equal parts, so PostgreSQL's shared buffers
// count once in the sum, not once per backend. The sum is sampled every
// memSampleEvery during the run and the largest sample is the figure; for
// a single process the kernel's own high-water mark (VmHWM, reset through
// /proc/PID/clear_refs when the run starts) is taken too, so a peak shorter
// than a sampling interval is not missed.

// memSampleEvery is the sampling interval of the memory watch.
const memSampleEvery = 50 * time.Millisecond

// memRefreshEvery is how many samples reuse one listing of the processes.
const memRefreshEvery = 10

// memMetric names the figure in the report.
const memMetric = "peak memory MiB"

// memWatch samples a server's memory until stopped.
type memWatch struct {
	pids func() []int
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak int64 // bytes
	// ps caches pids() between refreshes: listing a process tree reads
	// every /proc/*/stat.
	ps      []int
	samples int
}

// watchMemory starts sampling the processes pids returns. It returns nil
// when there is nothing to watch (no processes, or no /proc).
func watchMemory(pids func() []int) *memWatch {
	if pids == nil {
		return nil
	}
	ps := pids()
	if len(ps) == 0 {
		return nil
	}
	if len(ps) == 1 {
		resetHighWater(ps[0])
	}
	m := &memWatch{pids: pids, stop: make(chan struct{}), done: make(chan struct{})}
	m.sample()
	go func() {
		defer close(m.done)
		t := time.NewTicker(memSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memWatch) sample() {
	var sum int64
	if m.samples%memRefreshEvery == 0 {
		m.ps = m.pids()
	}
	m.samples++
	ps := m.ps
	for _, p := range ps {
		sum += procKB(filepath.Join("/proc", strconv.Itoa(p), "smaps_rollup"), "Pss") * 1024
	}
	if len(ps) == 1 {
		sum = max(sum, procKB(filepath.Join("/proc", strconv.Itoa(ps[0]), "status"), "VmHWM")*1024)
	}
	m.mu.Lock()
	m.peak = max(m.peak, sum)
	m.mu.Unlock()
}

// Stop ends the watch and returns the peak in MiB (0 if nothing was
// readable).
func (m *memWatch) Stop() float64 {
	close(m.stop)
	<-m.done
	m.samples = 0 // list the processes again for the last sample
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	return float64(m.peak) / (1 << 20)
}

// resetHighWater resets the kernel's peak-RSS mark of pid (VmHWM).
func resetHighWater(pid int) {
	_ = os.WriteFile(filepath.Join("/proc", strconv.Itoa(pid), "clear_refs"), []byte("5"), 0)
}

// procKB reads a "Key:   123 kB" line of a /proc file; 0 when absent.
func procKB(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n
	}
	return 0
}

// processTree returns root and every process descended from it, read
// from /proc/*/stat.
func processTree(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = pp
		}
	}
	if _, ok := parent[root]; !ok {
		return nil
	}
	out := []int{root}
	for changed := true; changed; {
		changed = false
		in := map[int]bool{}
		for _, p := range out {
			in[p] = true
		}
		for pid, pp := range parent {
			if in[pp] && !in[pid] {
				out = append(out, pid)
				changed = true
			}
		}
	}
	return out
}

// postmasterPID reads the postmaster's pid from its data directory.
func postmasterPID(data string) int {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}
