package tikv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/tikvrpc"
)

// slowClient is an RPC client whose requests wait until released and
// which records whether a request ran after it was closed.
type slowClient struct {
	tikv.Client
	started, release chan struct{}
	closed           bool
	usedAfterClose   bool
}

func (c *slowClient) SendRequest(context.Context, string, *tikvrpc.Request, time.Duration) (*tikvrpc.Response, error) {
	c.started <- struct{}{}
	<-c.release
	if c.closed {
		c.usedAfterClose = true
	}
	return &tikvrpc.Response{}, nil
}

func (c *slowClient) Close() error { c.closed = true; return nil }

// TestCloseGateWaitsForRequests checks the gate between client-go and the
// mock cluster: Close waits for a request in flight (client-go's
// background lock resolution is one it does not wait for itself), and a
// request after Close is refused instead of reaching a closed store.
func TestCloseGateWaitsForRequests(t *testing.T) {
	inner := &slowClient{started: make(chan struct{}), release: make(chan struct{})}
	g := &closeGate{Client: inner}
	done := make(chan error)
	go func() {
		_, err := g.SendRequest(context.Background(), "", nil, 0)
		done <- err
	}()
	<-inner.started
	closed := make(chan struct{})
	go func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a request was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(inner.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-closed
	if inner.usedAfterClose || !inner.closed {
		t.Fatalf("usedAfterClose=%v closed=%v", inner.usedAfterClose, inner.closed)
	}
	if _, err := g.SendRequest(context.Background(), "", nil, 0); !errors.Is(err, errMockClosed) {
		t.Fatalf("request after Close: %v, want errMockClosed", err)
	}
}
