package kafka

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// fill sets every field of v, recursively, to a non-zero value, with two
// elements in every array, so that a request encoded from it has every
// field its version carries.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() || v.Type().Field(i).Name == "Version" || f.Type() == reflect.TypeOf(kmsg.Tags{}) {
				continue
			}
			fill(f)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte("xy"))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	case reflect.String:
		v.SetString("ab")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	}
}

// TestEveryAPIsShapeWalksItsWholeRequestAtEveryVersion holds each API's
// request shape (what checkCounts walks before kmsg decodes) to kmsg's
// own encoding: a request with every field set and two elements in every
// array, at every version the listener serves, is walked to its last
// byte. A shape that misses a field would refuse valid requests or bound
// the wrong counts.
func TestEveryAPIsShapeWalksItsWholeRequestAtEveryVersion(t *testing.T) {
	for _, a := range apis {
		for v := a.min; v <= a.max; v++ {
			req := kmsg.RequestForKey(a.key)
			if req == nil {
				t.Fatalf("kmsg has no request for key %d", a.key)
			}
			fill(reflect.ValueOf(req).Elem())
			req.SetVersion(v)
			body := req.AppendTo(nil)
			w := counter{b: body, flexible: req.IsFlexible()}
			if !w.walk(a.shape(v, req.IsFlexible())) {
				t.Errorf("%s v%d: the shape refuses a valid request of %d bytes", a.name, v, len(body))
				continue
			}
			if len(w.b) != 0 {
				t.Errorf("%s v%d: the shape stops %d bytes before the request's end (%d bytes)", a.name, v, len(w.b), len(body))
			}
		}
	}
}
