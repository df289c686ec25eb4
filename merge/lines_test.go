package merge

import (
	"math/rand"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	cases := []struct {
		name, ours, theirs, want string
		ok                       bool
	}{
		{"one side", "a\nB\nc\nd\ne\nf\ng\n", base, "a\nB\nc\nd\ne\nf\ng\n", true},
		{"other side", base, "a\nb\nc\nd\ne\nF\ng\n", "a\nb\nc\nd\ne\nF\ng\n", true},
		{"both, apart", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nF\ng\n", "a\nB\nc\nd\ne\nF\ng\n", true},
		{"same change", "a\nB\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", true},
		{"insert and delete apart", "x\na\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\ng\n", "x\na\nb\nc\nd\ne\ng\n", true},
		{"appends at both ends", "top\n" + base, base + "end\n", "top\n" + base + "end\n", true},
		{"same line differently", "a\nB1\nc\nd\ne\nf\ng\n", "a\nB2\nc\nd\ne\nf\ng\n", "", false},
		{"adjacent lines", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\n", "", false},
		{"deleted and changed", "a\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", "", false},
		{"last line without newline", "a\nB\nc\nd\ne\nf\ng", "a\nb\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng", true},
		{"last line both", "a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nd\ne\nf\nG\n", "", false},
	}
	for _, c := range cases {
		got, ok := Lines(base, c.ours, c.theirs)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: got %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestMyersIsACommonSubsequence checks the matches on random texts: pairs
// ascend, match equal lines, and are as many as the LCS length.
func TestMyersIsACommonSubsequence(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		a, b := randomInts(r, r.Intn(30)), randomInts(r, r.Intn(30))
		pairs := myers(a, b)
		for i := range pairs {
			p := pairs[i]
			if a[p[0]] != b[p[1]] {
				t.Fatalf("pair %v matches different lines", p)
			}
			if i > 0 && (pairs[i-1][0] <= p[0] || pairs[i-1][1] <= p[1]) {
				t.Fatalf("pairs not strictly monotonic: %v", pairs)
			}
		}
		if len(pairs) != lcsLen(a, b) {
			t.Fatalf("%v / %v: %d pairs, LCS is %d", a, b, len(pairs), lcsLen(a, b))
		}
	}
}

func randomInts(r *rand.Rand, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = r.Intn(4)
	}
	return out
}

func lcsLen(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestLinesLargeBody(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	base := b.String()
	ours := "first\n" + base
	theirs := base + "last\n"
	got, ok := Lines(base, ours, theirs)
	if !ok || got != "first\n"+base+"last\n" {
		t.Fatalf("large merge failed: ok=%v", ok)
	}
}
