package sizedlru

import "testing"

func TestBudgetAndLargestEntry(t *testing.T) {
	c := New[string](10, 4)
	c.Add("a", "A", 4)
	c.Add("b", "B", 4)
	if _, ok := c.Get("a"); !ok { // a is now the most recently used
		t.Fatal("a missing")
	}
	c.Add("c", "C", 4) // 12 > 10: b, the least recently used, goes
	if _, ok := c.Get("b"); ok {
		t.Error("b kept over the budget")
	}
	if v, ok := c.Get("a"); !ok || v != "A" {
		t.Errorf("a: %q %v", v, ok)
	}
	c.Add("big", "X", 5) // over the largest entry: not kept, nothing dropped
	if _, ok := c.Get("big"); ok {
		t.Error("a value over the largest entry was kept")
	}
	if n, size := c.Len(); n != 2 || size != 8 {
		t.Errorf("Len %d %d, want 2 8", n, size)
	}
	c.Add("a", "A2", 1) // replacing frees the old size
	if n, size := c.Len(); n != 2 || size != 5 {
		t.Errorf("after replacing: Len %d %d, want 2 5", n, size)
	}
	c.Add("zero", "Z", 0) // sizes count at least 1
	if _, size := c.Len(); size != 6 {
		t.Errorf("a zero size counted %d", size-5)
	}
}
