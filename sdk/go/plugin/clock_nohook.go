//go:build !t9ksim_clock

package plugin

// Built with plain `go build`: time.Now reads the wall clock. Controllers that take their time
// from Server.Clock() are still deterministic; the server says so at start (docs/plugins-go.md).
const timeIsSimulated = false
