package plugin

import (
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// simNowMicros is the simulated time of the message being served, in µs since the epoch. Every
// clock the SDK hands out reads it; so does time.Now in a binary built with t9ksim-go
// (clock_hook.go).
var simNowMicros atomic.Int64

func simNow() time.Time { return time.UnixMicro(simNowMicros.Load()).UTC() }

// simClock is a clock.PassiveClock on the simulated time.
type simClock struct{}

func (simClock) Now() time.Time                  { return simNow() }
func (simClock) Since(t time.Time) time.Duration { return simNow().Sub(t) }

var _ clock.PassiveClock = simClock{}
