package systems

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// pbField is one field of a protobuf message as it lies on the wire: the
// recognisers need a handful of strings and integers from three message
// types (Hadoop's ActiveNodeInfo and ActiveRMInfoProto, HBase's Master and
// TableLock), so a wire reader of forty lines stands in for generated code.
type pbField struct {
	num    int
	varint uint64 // wire type 0
	bytes  []byte // wire type 2
	isLen  bool   // wire type 2
}

// pbFields reads a whole message; false unless every byte belongs to a
// well-formed field (which is what makes a decode evidence of the format).
func pbFields(b []byte) ([]pbField, bool) {
	var out []pbField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 || key>>3 == 0 {
			return nil, false
		}
		b = b[n:]
		f := pbField{num: int(key >> 3)}
		switch key & 7 {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, false
			}
			f.varint, b = v, b[n:]
		case 1:
			if len(b) < 8 {
				return nil, false
			}
			b = b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, false
			}
			f.bytes, f.isLen, b = b[n:n+int(l)], true, b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return nil, false
			}
			b = b[4:]
		default:
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

// pbMessage is a decoded message's fields by number (the last one wins,
// as protobuf merges a repeated singular field).
type pbMessage map[int]pbField

func pbDecode(b []byte) (pbMessage, bool) {
	fs, ok := pbFields(b)
	if !ok {
		return nil, false
	}
	m := pbMessage{}
	for _, f := range fs {
		m[f.num] = f
	}
	return m, true
}

// str is field n as text; false when absent or not length-delimited.
func (m pbMessage) str(n int) (string, bool) {
	f, ok := m[n]
	if !ok || !f.isLen {
		return "", false
	}
	return string(f.bytes), true
}

// uint is field n as a varint; false when absent or of another wire type.
func (m pbMessage) uint(n int) (uint64, bool) {
	f, ok := m[n]
	if !ok || f.isLen {
		return 0, false
	}
	return f.varint, true
}

// jsonObject decodes data as one JSON object, numbers kept as json.Number;
// false for anything else.
func jsonObject(data []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// jsonString is key k of m when it is a string.
func jsonString(m map[string]any, k string) (string, bool) {
	s, ok := m[k].(string)
	return s, ok
}

// jsonInt is key k of m when it is an integer.
func jsonInt(m map[string]any, k string) (int64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}
