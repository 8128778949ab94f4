package kv

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// usageFS reports avail free bytes and counts the preallocations of the
// files it creates.
type usageFS struct {
	vfs.FS
	avail  uint64
	called *int
}

func (u usageFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	return vfs.DiskUsage{AvailBytes: u.avail, TotalBytes: 1 << 40}, nil
}

func (u usageFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := u.FS.Create(name, c)
	return countingFile{File: f, called: u.called}, err
}

type countingFile struct {
	vfs.File
	called *int
}

func (f countingFile) Preallocate(offset, length int64) error { *f.called++; return nil }

// TestWALPreallocOnlyWithRoom: a write-ahead log reserves a step of
// blocks only while preallocRoom times its size is free; other files
// preallocate as Pebble asks.
func TestWALPreallocOnlyWithRoom(t *testing.T) {
	const step = 9 << 20
	for _, c := range []struct {
		name  string
		avail uint64
		want  int
	}{
		{"000007.log", preallocRoom * step, 1},
		{"000007.log", preallocRoom*step - 1, 0},
		{"000008.sst", 0, 1},
	} {
		called := 0
		fs := walPrealloc{usageFS{FS: vfs.NewMem(), avail: c.avail, called: &called}}
		f, err := fs.Create(c.name, vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Preallocate(0, step); err != nil {
			t.Fatal(err)
		}
		if called != c.want {
			t.Errorf("%s with %d bytes free: %d preallocations, want %d", c.name, c.avail, called, c.want)
		}
		_ = f.Close()
	}
}
