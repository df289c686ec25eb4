package storage

// AddChangeSinkForTest adds a change sink for one test; call the returned
// function to remove it. Tests using it must not run in parallel.
func AddChangeSinkForTest(s func(tx *Tx, a Actor, c Change) error) (restore func()) {
	old := changeSinks
	changeSinks = append(append([]changeSink(nil), old...), s)
	return func() { changeSinks = old }
}
