package plugin

// ControllerOptions are the scenario's choices for the built-in controllers (docs/protocol.md
// §6.5), sent once in initialize. A controller is free to ignore them.
type ControllerOptions struct {
	RetryableExitCodes          string  `json:"retryableExitCodes"`
	T9kRetryableExitCodes       []int32 `json:"t9kRetryableExitCodes"`
	BackoffLimitRule            string  `json:"backoffLimitRule"`
	ExitCodeIgnoresBackoffLimit bool    `json:"exitCodeIgnoresBackoffLimit"`
	RestartBackoff              bool    `json:"restartBackoff"`
	RestartBackoffBaseMicros    int64   `json:"restartBackoffBaseMicros"`
	RestartBackoffCapMicros     int64   `json:"restartBackoffCapMicros"`
	PermanentFailureScope       string  `json:"permanentFailureScope"`
	MaxDurationHandling         string  `json:"maxDurationHandling"`
	RunningWhen                 string  `json:"runningWhen"`
	GenericLimitScope           string  `json:"genericLimitScope"`
	ElasticSuccess              string  `json:"elasticSuccess"`
}
