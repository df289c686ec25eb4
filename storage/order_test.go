package storage

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestKeyBetweenKnownValues(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"", "", "a0"},
		{"", "a0", "Zz"},
		{"", "Zz", "Zy"},
		{"a0", "", "a1"},
		{"a1", "", "a2"},
		{"a0", "a1", "a0V"},
		{"a1", "a2", "a1V"},
		{"a0V", "a1", "a0l"},
		{"Zz", "a0", "ZzV"},
		{"Zz", "a1", "a0"},
		{"", "Y00", "Xzzz"},
		{"bzz", "", "c000"},
		{"a0", "a0V", "a0G"},
		{"a0", "a0G", "a08"},
		{"b125", "b129", "b127"},
		{"a0", "a1V", "a1"},
		{"Zz", "a01", "a0"},
		{"", "a0V", "a0"},
		{"", "b999", "b99"},
		{"az", "", "b00"},
		{"l000000065536", "", "l000000065537"},
		{"l00000006553z", "", "l00000006554" + "0"},
	} {
		got, err := keyBetween(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("keyBetween(%q, %q) = %q, %v; want %q", c.a, c.b, got, err, c.want)
		}
	}
	for _, c := range [][2]string{{"a1", "a0"}, {"a0", "a0"}, {"a00", ""}, {"a0", "a10"}, {"", "A00000000000000000000000000"}, {"a", ""}, {"a/", ""}, {"!", ""}} {
		if got, err := keyBetween(c[0], c[1]); err == nil {
			t.Errorf("keyBetween(%q, %q) = %q, want an error", c[0], c[1], got)
		}
	}
}

// Random inserts anywhere in a list keep it strictly ordered with valid
// keys, and the keys stay short.
func TestKeyBetweenKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var keys []string
	for i := range 5000 {
		at := r.IntN(len(keys) + 1)
		switch i % 10 { // skewed: repeated inserts at the front and the end too
		case 0:
			at = 0
		case 1:
			at = len(keys)
		}
		a, b := "", ""
		if at > 0 {
			a = keys[at-1]
		}
		if at < len(keys) {
			b = keys[at]
		}
		k, err := keyBetween(a, b)
		if err != nil {
			t.Fatalf("keyBetween(%q, %q): %v", a, b, err)
		}
		if validateOrderKey(k) != nil || (a != "" && k <= a) || (b != "" && k >= b) {
			t.Fatalf("keyBetween(%q, %q) = %q: not strictly between or invalid", a, b, k)
		}
		keys = slices.Insert(keys, at, k)
	}
	if !slices.IsSorted(keys) {
		t.Fatal("keys out of order")
	}
	for _, k := range keys {
		if len(k) > 40 {
			t.Fatalf("key %q grew past 40 characters over 5000 random inserts", k)
		}
	}
	// The same spot, over and over: length grows by about one character per
	// six inserts, never faster.
	a, b := "a0", "a1"
	for i := range 300 {
		k, err := keyBetween(a, b)
		if err != nil || k <= a || k >= b {
			t.Fatalf("insert %d between %q and %q: %q, %v", i, a, b, k, err)
		}
		b = k
	}
	if len(b) > 2+300/5 {
		t.Fatalf("300 inserts at one spot made a %d-character key", len(b))
	}
}

func TestKeysAfterStayShort(t *testing.T) {
	keys, err := KeysAfter("", 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(keys) || len(keys[len(keys)-1]) > 5 {
		t.Fatalf("last of a million appended keys: %q (sorted: %v)", keys[len(keys)-1], slices.IsSorted(keys))
	}
	// Backwards from the start as well.
	k := "a0"
	for range 100_000 {
		p, err := keyBetween("", k)
		if err != nil || p >= k {
			t.Fatalf("before %q: %q, %v", k, p, err)
		}
		k = p
	}
	if len(k) > 5 {
		t.Fatalf("100,000 prepends made %q", k)
	}
}

func FuzzKeyBetween(f *testing.F) {
	f.Add("a0", "a1")
	f.Add("", "Zz")
	f.Add("a0V", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		k, err := keyBetween(a, b)
		if err != nil {
			return
		}
		if validateOrderKey(k) != nil || (a != "" && k <= a) || (b != "" && k >= b) {
			t.Fatalf("keyBetween(%q, %q) = %q", a, b, k)
		}
	})
}
