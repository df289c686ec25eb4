package graph

import (
	"encoding/json"
	"testing"

	"docsapi/graph/model"
)

// FuzzQueueTaskInput: any body is refused with a 400 or accepted within
// the bounds (JSON at most MaxTaskBytes, schedule whole seconds in
// 0..86400), never a panic.
func FuzzQueueTaskInput(f *testing.F) {
	for _, s := range []string{
		`{"task":{"kind":"sync"}}`, `{"task":{},"schedule":60}`, `{"task":{"a":[1,2,{"b":null}]},"schedule":86400}`,
		`{"task":[]}`, `{"schedule":-1,"task":{}}`, `{"task":{"x":{"x":{"x":{"x":{}}}}}}`, `{"task":{},"schedule":1.5}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in model.QueueIntegrationTaskInput
		if json.Unmarshal(body, &in) != nil {
			return
		}
		raw, delay, err := checkTask(in)
		if err != nil {
			return
		}
		if len(raw) > MaxTaskBytes || delay < 0 || delay.Seconds() > maxTaskSchedule || float64(int64(delay.Seconds())) != delay.Seconds() {
			t.Fatalf("accepted out of bounds: %d bytes, delay %v", len(raw), delay)
		}
		var back map[string]any
		if err := json.Unmarshal(raw, &back); err != nil || back == nil {
			t.Fatalf("accepted a task that is not an object: %s", raw)
		}
	})
}
