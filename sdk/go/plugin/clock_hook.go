//go:build t9ksim_clock

package plugin

import "time"

// Built by t9ksim-go (cmd/t9ksim-go), whose overlay of the standard library's time package adds
// T9ksimSetClock: time.Now, and everything built on it (metav1.Now, time.Since, clock.RealClock),
// reads the simulated time.
const timeIsSimulated = true

func init() {
	time.T9ksimSetClock(func() (int64, int32) {
		us := simNowMicros.Load()
		return us / 1_000_000, int32(us%1_000_000) * 1000
	})
}
