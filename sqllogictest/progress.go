package sqllogictest

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Refresh periods: a terminal bar redraws often; plain output (a log
// file, CI) gets a line now and then.
const (
	ttyRefresh   = 200 * time.Millisecond
	plainRefresh = 10 * time.Second
	barWidth     = 24
)

// progress reports files done, records run and failures while RunFiles
// works. A nil writer makes every method a no-op. record and fileDone are
// safe from many goroutines.
type progress struct {
	w     io.Writer
	tty   bool
	total int
	start time.Time

	done, records, failed atomic.Int64

	mu struct {
		sync.Mutex
		lastLen int // width of the bar on screen, 0 when cleared
	}
	stopc chan struct{}
	wg    sync.WaitGroup
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now(), stopc: make(chan struct{})}
	if w == nil {
		return p
	}
	p.tty = isTerminal(w)
	period := plainRefresh
	if p.tty {
		period = ttyRefresh
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-p.stopc:
				return
			case <-tick.C:
				p.draw(false)
			}
		}
	}()
	return p
}

func (p *progress) record(failed bool) {
	p.records.Add(1)
	if failed {
		p.failed.Add(1)
	}
}

func (p *progress) fileDone() { p.done.Add(1) }

// line formats the current state.
func (p *progress) line() string {
	done := int(p.done.Load())
	filled := 0
	if p.total > 0 {
		filled = done * barWidth / p.total
	}
	return fmt.Sprintf("[%s%s] %d/%d files  %d records  %d failed  %s",
		strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled),
		done, p.total, p.records.Load(), p.failed.Load(),
		time.Since(p.start).Round(time.Second))
}

// draw writes the state: in place on a terminal, as a new line otherwise.
func (p *progress) draw(final bool) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.line()
	if !p.tty {
		fmt.Fprintln(p.w, s)
		return
	}
	pad := ""
	if n := p.mu.lastLen - len(s); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprint(p.w, "\r"+s+pad)
	p.mu.lastLen = len(s)
	if final {
		fmt.Fprintln(p.w)
		p.mu.lastLen = 0
	}
}

// clear erases the bar so that other output starts on a clean line; the
// next tick draws it again.
func (p *progress) clear() {
	if p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.lastLen > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.mu.lastLen)+"\r")
		p.mu.lastLen = 0
	}
}

// stop ends the refreshing and writes the final state.
func (p *progress) stop() {
	if p.w == nil {
		return
	}
	close(p.stopc)
	p.wg.Wait()
	p.draw(true)
}
