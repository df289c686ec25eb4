package site

// Renders is how many answers were rendered rather than served from the
// cache.
func Renders() int64 { return renders.Load() }
