package types

import "testing"

// FuzzParseInet holds ParseInet to never panicking, and an accepted value
// to print as text that reads back as the same value, in both types.
func FuzzParseInet(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "10/8", "192.168/16", "::1", "::ffff:1.2.3.4/120", "2001:db8::/32", "224", "1.2.3.4/33", "fe80::1%eth0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, cidr := range []bool{false, true} {
			v, bad := ParseInet(s, cidr)
			if bad != 0 {
				continue
			}
			text := string(AppendInet(nil, v, cidr))
			w, bad := ParseInet(text, cidr)
			if bad != 0 || w != v {
				t.Fatalf("%q (cidr %v) printed as %q, which reads back as %v/%d (%d)", s, cidr, text, w.Addr, w.Bits, bad)
			}
			if d, ok := InetOf(NewInet(v)); !ok || d != v {
				t.Fatalf("%q: datum round trip gave %v/%d", s, d.Addr, d.Bits)
			}
		}
	})
}

// TestInetText checks input and output forms against PostgreSQL 15's.
func TestInetText(t *testing.T) {
	for _, c := range []struct {
		in   string
		cidr bool
		out  string
	}{
		{"1.2.3.4", false, "1.2.3.4"},
		{"1.2.3.4/24", false, "1.2.3.4/24"},
		{"10/8", false, "10.0.0.0/8"},
		{"10", true, "10.0.0.0/8"},
		{"192.168", true, "192.168.0.0/24"},
		{"224", true, "224.0.0.0/4"},
		{"224.1", true, "224.1.0.0/16"},
		{"240", true, "240.0.0.0/32"},
		{"128/1", true, "128.0.0.0/1"},
		{"1:2:0:0:0:0:3:4", false, "1:2::3:4"},
		{"1:0:0:2:0:0:0:3", false, "1:0:0:2::3"},
		{"0:0:0:0:0:0:0:0", false, "::"},
		{"::ffff:0:0", false, "::ffff:0.0.0.0"},
		{"::102:304", false, "::1.2.3.4"},
		{"::0.0.0.1", false, "::1"},
		{"1:0:2:0:3:0:4:0", false, "1:0:2:0:3:0:4:0"},
		{"FFFF::", false, "ffff::"},
		{"2001:db8::/32", true, "2001:db8::/32"},
	} {
		v, bad := ParseInet(c.in, c.cidr)
		if bad != 0 {
			t.Errorf("%q: refused (%d)", c.in, bad)
			continue
		}
		if got := string(AppendInet(nil, v, c.cidr)); got != c.out {
			t.Errorf("%q: %q, want %q", c.in, got, c.out)
		}
	}
	for _, c := range []struct {
		in   string
		cidr bool
		want InetError
	}{
		{"1.2.3", false, InetSyntax}, {"1.2.3.4 ", false, InetSyntax}, {"256.1.1.1", false, InetSyntax},
		{"1.2.3.4/33", false, InetSyntax}, {"1.2.3.4/", false, InetSyntax}, {"fe80::1%eth0", false, InetSyntax},
		{"1.2.3.4/24", true, InetHostBitsSet}, {"::1/64", true, InetHostBitsSet},
	} {
		if _, bad := ParseInet(c.in, c.cidr); bad != c.want {
			t.Errorf("%q (cidr %v): error %d, want %d", c.in, c.cidr, bad, c.want)
		}
	}
}
