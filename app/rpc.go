package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// dispatcher calls bound methods by name, the way Wails does for the desktop window: arguments
// arrive as a JSON array and a trailing error return becomes a failed call.
type dispatcher struct {
	methods map[string]reflect.Value // "Service.Method"
}

var errorType = reflect.TypeFor[error]()

func newDispatcher(services []any) *dispatcher {
	d := &dispatcher{methods: map[string]reflect.Value{}}
	for _, svc := range services {
		v := reflect.ValueOf(svc)
		name := reflect.Indirect(v).Type().Name()
		for i := 0; i < v.NumMethod(); i++ {
			d.methods[name+"."+v.Type().Method(i).Name] = v.Method(i)
		}
	}
	return d
}

var errUnknownMethod = errors.New("unknown method")

// call decodes args for the named method, calls it and returns its result (nil when it has none).
func (d *dispatcher) call(name string, rawArgs []byte) (any, error) {
	m, ok := d.methods[name]
	if !ok {
		return nil, fmt.Errorf("%w %s", errUnknownMethod, name)
	}
	var raw []json.RawMessage
	if len(rawArgs) > 0 {
		if err := json.Unmarshal(rawArgs, &raw); err != nil {
			return nil, fmt.Errorf("%s: arguments must be a JSON array: %w", name, err)
		}
	}
	t := m.Type()
	if len(raw) != t.NumIn() {
		return nil, fmt.Errorf("%s takes %d arguments, got %d", name, t.NumIn(), len(raw))
	}
	in := make([]reflect.Value, t.NumIn())
	for i := range in {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			return nil, fmt.Errorf("%s argument %d: %w", name, i+1, err)
		}
		in[i] = p.Elem()
	}
	out := m.Call(in)
	if n := len(out); n > 0 && t.Out(n-1) == errorType {
		if err, _ := out[n-1].Interface().(error); err != nil {
			return nil, err
		}
		out = out[:n-1]
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out[0].Interface(), nil
}
