// Package compat only imports the SDK's packages and its GenericJob example, so that this
// module's build list is the one a controller on controller-runtime v0.17 has (go.mod's replace
// directives); the test builds and runs them from here.
package compat

import (
	_ "t9ksim.dev/sdk/api/batch/v1beta1"
	_ "t9ksim.dev/sdk/api/scheduler/v1beta1"
	_ "t9ksim.dev/sdk/examples/genericjob"
	_ "t9ksim.dev/sdk/plugin"
)
