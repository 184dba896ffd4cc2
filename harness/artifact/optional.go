package artifact

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON writes the row, or null when Present with a nil Row. An absent
// response_timing is left out by the omitzero tag through IsZero.
func (o OptionalTiming) MarshalJSON() ([]byte, error) {
	if o.Row == nil {
		return []byte("null"), nil
	}
	return json.Marshal(o.Row)
}

// UnmarshalJSON records that the key was present; null leaves Row nil. It is not called
// for an absent key, which therefore keeps Present false.
func (o *OptionalTiming) UnmarshalJSON(data []byte) error {
	*o = OptionalTiming{Present: true}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var row RequestTiming
	if err := json.Unmarshal(data, &row); err != nil {
		return err
	}
	o.Row = &row
	return nil
}
