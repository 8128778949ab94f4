package bench

import (
	"context"
	"fmt"
	"sync"
	"syscall"
)

// dataset loads a set of tables into a target once, however many
// workloads share it.
type dataset struct {
	mu   sync.Mutex
	done map[string]bool
	load func(ctx context.Context, s *Server) error
}

func newDataset(load func(ctx context.Context, s *Server) error) *dataset {
	return &dataset{done: map[string]bool{}, load: load}
}

// setup loads the dataset into t unless it is there already.
func (d *dataset) setup(ctx context.Context, t Target) error {
	s, ok := t.(*Server)
	if !ok {
		return fmt.Errorf("bench: %s is not a server", t.Name())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done[s.name] {
		return nil
	}
	if err := d.load(ctx, s); err != nil {
		return err
	}
	// Write the load's dirty pages out now: otherwise the kernel writes
	// them back during the first timed rounds, charging whichever system
	// runs then for the other's load.
	syscall.Sync()
	d.done[s.name] = true
	return nil
}

// server returns t as a wire server.
func server(t Target) (*Server, error) {
	s, ok := t.(*Server)
	if !ok {
		return nil, fmt.Errorf("bench: %s is not a server", t.Name())
	}
	return s, nil
}
