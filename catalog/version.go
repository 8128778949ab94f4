package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// CurrentVersion is the store format version this code reads and writes.
const CurrentVersion uint64 = 1

// An upgrade moves a store from version To-1 to version To. Run must be
// idempotent: the version key is written in a separate batch after Run
// returns, so a crash in between runs the step again on the next Open.
// Steps must build keys with their own code, not with helpers that may
// change in later versions.
type upgrade struct {
	To  uint64
	Run func(e kv.Engine) error
}

// upgrades lists the steps in order; version 2's step goes here.
var upgrades []upgrade

// Open bootstraps e if needed, runs pending upgrades and loads the
// catalog.
func Open(e kv.Engine) (*Catalog, error) {
	if err := Bootstrap(e); err != nil {
		return nil, err
	}
	return Load(e)
}

// Bootstrap prepares e for use: a store without a format version key gets
// version CurrentVersion, the id counter and the default database; a store
// at an older version is upgraded step by step; a store at an unknown
// (newer) version is refused with an error naming both versions.
func Bootstrap(e kv.Engine) error { return bootstrap(e, CurrentVersion, upgrades) }

func bootstrap(e kv.Engine, current uint64, steps []upgrade) error {
	ver, err := readVersion(e)
	if err != nil {
		return err
	}
	if ver == 0 {
		return initStore(e, current)
	}
	if ver > current {
		return versionError(ver, current)
	}
	for _, s := range steps {
		if s.To <= ver || s.To > current {
			continue
		}
		if s.To != ver+1 {
			return pgerror.Newf(pgerror.Internal, "catalog: no upgrade step from version %d to %d", ver, ver+1)
		}
		if err := s.Run(e); err != nil {
			return fmt.Errorf("catalog: upgrading store to version %d: %w", s.To, err)
		}
		if err := setVersion(e, s.To); err != nil {
			return err
		}
		ver = s.To
	}
	if ver != current {
		return pgerror.Newf(pgerror.Internal, "catalog: store is at version %d, no upgrade step reaches %d", ver, current)
	}
	return nil
}

func versionError(stored, supported uint64) error {
	return pgerror.Newf(pgerror.FeatureNotSupported,
		"catalog: store format version %d is not supported: this kvsql reads version %d (a newer kvsql wrote this store?)", stored, supported)
}

// readVersion returns the stored format version, 0 if there is none.
func readVersion(r kv.Reader) (uint64, error) {
	v, err := r.Get(FormatKey())
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ver, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) || ver == 0 {
		return 0, pgerror.Newf(pgerror.DataCorrupted, "catalog: bad format version value %x", v)
	}
	return ver, nil
}

func setVersion(e kv.Engine, ver uint64) error {
	b := e.NewBatch()
	defer b.Close()
	if err := b.Set(FormatKey(), binary.AppendUvarint(nil, ver)); err != nil {
		return err
	}
	return b.Commit(true)
}

// initStore writes a new store's meta keys in one batch.
func initStore(e kv.Engine, ver uint64) error {
	b := e.NewBatch()
	defer b.Close()
	if err := b.Set(FormatKey(), binary.AppendUvarint(nil, ver)); err != nil {
		return err
	}
	if err := writeNextID(b, FirstUserSpace); err != nil {
		return err
	}
	if err := writeDatabase(b, DefaultDatabase); err != nil {
		return err
	}
	return b.Commit(true)
}
