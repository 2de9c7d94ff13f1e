package server

// SetFastPath turns the writes from the node's goroutine (the fast path:
// a response or request written at once, records by reference, when the
// connection's writer is idle) on or off, and returns what it was.
func SetFastPath(on bool) bool {
	was := fastPath
	fastPath = on
	return was
}
