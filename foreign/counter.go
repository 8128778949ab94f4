package foreign

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Counter is an application's id counter: one key whose value is the
// number the application allocates ids from (the chat server's
// users:nextId). kvsql shows it as a sequence of the foreign database;
// nextval reads the key, advances it and writes it back in the
// application's encoding, so the application's own next read of the
// key sees the new value.
type Counter struct {
	// Key is the key as the document spells it: literal text and
	// {0xHH} bytes, no fields.
	Key string `json:"key"`
	// Encoding is decimal (ASCII digits, as seed 000 keeps its
	// counters) or a fixed-width big-endian integer.
	Encoding Encoding `json:"encoding"`
	// Holds says what the stored number is: HoldsNext, the id the
	// application hands out next (seed 000's "next id to be used"), or
	// HoldsLast, the id it handed out last.
	Holds string `json:"holds"`

	key []byte // Key's bytes, built by check
}

// What a counter's key holds.
const (
	HoldsNext = "next"
	HoldsLast = "last"
)

// CounterFromDoc builds a counter from its Counter element.
func CounterFromDoc(d *DocCounter) (*Counter, error) {
	c := &Counter{Key: d.Key, Encoding: Encoding(d.Encoding), Holds: d.Holds}
	if c.Encoding == "" {
		c.Encoding = EncDecimal
	}
	if c.Holds == "" {
		c.Holds = HoldsNext
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// ToDoc is the inverse of CounterFromDoc.
func (c *Counter) ToDoc(name string) DocCounter {
	d := DocCounter{Name: name, Key: c.Key}
	if c.Encoding != EncDecimal {
		d.Encoding = string(c.Encoding)
	}
	if c.Holds != HoldsNext {
		d.Holds = c.Holds
	}
	return d
}

func (c *Counter) check() error {
	if c.Key == "" {
		return fmt.Errorf("key is missing")
	}
	k, err := parseLiteral(c.Key)
	if err != nil {
		return fmt.Errorf("key %q: %v", c.Key, err)
	}
	c.key = k
	if c.Encoding != EncDecimal && c.Encoding.Width() == 0 {
		return fmt.Errorf("encoding %q: a counter is decimal or one of uint8, uint16be, uint32be, uint64be, int16be, int32be, int64be", c.Encoding)
	}
	if c.Holds != HoldsNext && c.Holds != HoldsLast {
		return fmt.Errorf("holds=%q must be next or last", c.Holds)
	}
	return nil
}

// KeyBytes returns the counter's key (an error only for a counter that
// did not come from CounterFromDoc and does not check).
func (c *Counter) KeyBytes() ([]byte, error) {
	if c.key == nil {
		if err := c.check(); err != nil {
			return nil, pgerror.Newf(pgerror.DataCorrupted, "foreign counter %q: %v", c.Key, err)
		}
	}
	return c.key, nil
}

// Range returns the values the counter's encoding can store: the
// bounds of the sequence that shows it. A counter that holds the next
// id stops one short of the encoding's top, so that the value after
// the last id handed out can still be written.
func (c *Counter) Range() (lo, hi int64) {
	lo, hi = 1, math.MaxInt64
	switch c.Encoding {
	case EncUint8, EncUint16, EncUint32, EncInt16, EncInt32:
		w := c.Encoding.Width()
		hi = 1<<(8*w) - 1
		if c.Encoding == EncInt16 || c.Encoding == EncInt32 {
			hi = 1<<(8*w-1) - 1
		}
	}
	if c.Holds == HoldsNext {
		hi--
	}
	return lo, hi
}

// Read returns the number the counter's key holds; found is false when
// the key is absent. A value the encoding does not read is an error
// naming the key (XX001: the application's data is not what the
// document says).
func (c *Counter) Read(st Store) (v int64, found bool, err error) {
	k, err := c.KeyBytes()
	if err != nil {
		return 0, false, err
	}
	b, found, err := st.Get(k)
	if err != nil || !found {
		return 0, found, err
	}
	if c.Encoding == EncDecimal {
		v, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, true, pgerror.Newf(pgerror.DataCorrupted, "foreign counter key %q holds %q, not a decimal integer", c.Key, b)
		}
		return v, true, nil
	}
	if len(b) != c.Encoding.Width() {
		return 0, true, pgerror.Newf(pgerror.DataCorrupted, "foreign counter key %q holds %d bytes, %s needs %d", c.Key, len(b), c.Encoding, c.Encoding.Width())
	}
	var u uint64
	for _, x := range b {
		u = u<<8 | uint64(x)
	}
	switch c.Encoding {
	case EncInt16:
		return int64(int16(u)), true, nil
	case EncInt32:
		return int64(int32(u)), true, nil
	case EncUint64:
		if u > math.MaxInt64 {
			return 0, true, pgerror.Newf(pgerror.DataCorrupted, "foreign counter key %q holds %d, out of range for bigint", c.Key, u)
		}
	}
	return int64(u), true, nil
}

// Put returns the write that stores v in the counter's key (22003 for
// a value its encoding cannot hold).
func (c *Counter) Put(v int64) (KV, error) {
	k, err := c.KeyBytes()
	if err != nil {
		return KV{}, err
	}
	var b []byte
	if c.Encoding == EncDecimal {
		b = strconv.AppendInt(nil, v, 10)
	} else if b, err = c.Encoding.encode(types.NewInt(v)); err != nil {
		return KV{}, pgerror.Newf(pgerror.NumericValueOutOfRange, "foreign counter key %q: %v", c.Key, err)
	}
	return KV{Key: k, Value: b}, nil
}
