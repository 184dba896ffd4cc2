package stream

import (
	"encoding/json"
	"fmt"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// toolForm is how an API writes a function tool: what opens it up to its name, the key of
// its arguments' schema, what closes it.
type toolForm struct{ api, open, schema, close string }

// appendToolChoice appends the tool choice as chat writes it (and APIs of its form):
// "required", "auto" and "none" as strings, a named function as its tool's opening, name
// and close.
func (r ChatRequest) appendToolChoice(dst []byte, f toolForm) []byte {
	switch r.ToolChoice {
	case "":
		return dst
	case "required", "auto", "none":
		dst = append(dst, `,"tool_choice":`...)
		return wire.AppendString(dst, r.ToolChoice)
	}
	dst = append(dst, `,"tool_choice":`...)
	dst = append(dst, f.open...)
	dst = wire.AppendString(dst, r.ToolChoice)
	return append(dst, f.close...)
}

// appendToolList appends the request's tools as "tools" in the API's form.
func (r ChatRequest) appendToolList(dst []byte, f toolForm) ([]byte, error) {
	for k, t := range r.Tools {
		if !json.Valid(t.Parameters) {
			return nil, fmt.Errorf("encode %s request: tool %q: parameters are not JSON", f.api, t.Name)
		}
		if k == 0 {
			dst = append(dst, `,"tools":[`...)
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, f.open...)
		dst = wire.AppendString(dst, t.Name)
		dst = append(dst, `,"description":`...)
		dst = wire.AppendString(dst, t.Description)
		dst = append(dst, f.schema...)
		dst = append(dst, t.Parameters...)
		dst = append(dst, f.close...)
		if k == len(r.Tools)-1 {
			dst = append(dst, ']')
		}
	}
	return dst, nil
}
