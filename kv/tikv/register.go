package tikv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/kv"
)

func init() {
	kv.RegisterStore("tikv", func(rest string) (kv.Engine, error) {
		var addrs []string
		for _, a := range strings.Split(rest, ",") {
			if a = strings.TrimSpace(a); a != "" {
				addrs = append(addrs, a)
			}
		}
		return Open(addrs, Options{})
	})
	kv.RegisterStore("tikv-mock", func(rest string) (kv.Engine, error) {
		regions := 16
		if rest != "" {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 || n > 256 {
				return nil, fmt.Errorf("tikv: tikv-mock://%s: the number of regions must be 1..256", rest)
			}
			regions = n
		}
		m, err := OpenMock(MockOptions{Regions: regions, SplitEvery: 64})
		if err != nil {
			return nil, err
		}
		return m.Engine, nil
	})
}
