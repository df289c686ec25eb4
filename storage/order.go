package storage

import (
	"errors"
	"strings"
)

// Order keys: the position of a collection or space among its siblings is
// a fractional index (the scheme of Greenspan's "Implementing Fractional
// Indexing", as in rocicorp/fracdex, which the module proxy does not serve
// at a fixed version). A key is an integer part (a head letter giving its
// length, then base-62 digits) and an optional fraction with no trailing
// zero. Keys compare as byte strings, so an index on the text column
// serves every ordered read, and a key between any two others always
// exists: a move or an insert writes one row and never renumbers siblings.
// Appending increments the integer part, so a million appends keep keys
// at most five characters long.
//
// Every digit sorts above '/', the separator of sort keys (a child's sort
// key is its parent's, '/', its own key), so tree order is text order.
// PostgreSQL needs COLLATE "C" on these columns for the same byte order.

const orderDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// smallestInteger is the lowest integer part; nothing can come before a key
// equal to it, so it is never a valid key by itself.
const smallestInteger = "A00000000000000000000000000"

var errOrderKey = errors.New("storage: invalid order key")

// keyBetween is a key strictly between a and b ("" for no bound on that
// side). a must sort before b when both are set.
func keyBetween(a, b string) (string, error) {
	if a != "" {
		if err := validateOrderKey(a); err != nil {
			return "", err
		}
	}
	if b != "" {
		if err := validateOrderKey(b); err != nil {
			return "", err
		}
	}
	if a != "" && b != "" && a >= b {
		return "", errOrderKey
	}
	switch {
	case a == "" && b == "":
		return "a0", nil
	case a == "":
		ib := integerPart(b)
		fb := b[len(ib):]
		if ib == smallestInteger {
			m, err := midpoint("", fb)
			return ib + m, err
		}
		if ib < b {
			return ib, nil
		}
		res := decrementInteger(ib)
		if res == "" {
			return "", errOrderKey
		}
		return res, nil
	case b == "":
		ia := integerPart(a)
		if i := incrementInteger(ia); i != "" {
			return i, nil
		}
		m, err := midpoint(a[len(ia):], "")
		return ia + m, err
	}
	ia, ib := integerPart(a), integerPart(b)
	if ia == ib {
		m, err := midpoint(a[len(ia):], b[len(ib):])
		return ia + m, err
	}
	i := incrementInteger(ia)
	if i == "" {
		return "", errOrderKey
	}
	if i < b {
		return i, nil
	}
	m, err := midpoint(a[len(ia):], "")
	return ia + m, err
}

// midpoint is a fraction strictly between fractions a and b ("" for b: no
// upper bound), neither with a trailing zero.
func midpoint(a, b string) (string, error) {
	var out strings.Builder
	for range 10_000 { // each round consumes a digit of a or b
		if b != "" {
			n := 0
			for n < len(b) && digitAt(a, n) == b[n] {
				n++
			}
			if n > 0 {
				out.WriteString(b[:n])
				a, b = a[min(n, len(a)):], b[n:]
				continue
			}
		}
		da := 0
		if a != "" {
			da = strings.IndexByte(orderDigits, a[0])
		}
		db := len(orderDigits)
		if b != "" {
			db = strings.IndexByte(orderDigits, b[0])
		}
		if db-da > 1 {
			out.WriteByte(orderDigits[(da+db+1)/2])
			return out.String(), nil
		}
		if len(b) > 1 {
			out.WriteByte(b[0])
			return out.String(), nil
		}
		out.WriteByte(orderDigits[da])
		if a != "" {
			a = a[1:]
		}
		b = ""
	}
	return "", errOrderKey
}

// digitAt is a's i-th digit, or the zero digit past its end.
func digitAt(a string, i int) byte {
	if i < len(a) {
		return a[i]
	}
	return orderDigits[0]
}

// integerLength is the length of the integer part that starts with head.
func integerLength(head byte) int {
	switch {
	case head >= 'a' && head <= 'z':
		return int(head-'a') + 2
	case head >= 'A' && head <= 'Z':
		return int('Z'-head) + 2
	}
	return 0
}

func integerPart(key string) string { return key[:integerLength(key[0])] }

// validateOrderKey accepts a well-formed key: a known head, a complete
// integer part, digits only, no trailing zero in the fraction.
func validateOrderKey(key string) error {
	if key == "" || key == smallestInteger {
		return errOrderKey
	}
	n := integerLength(key[0])
	if n == 0 || n > len(key) {
		return errOrderKey
	}
	for i := 1; i < len(key); i++ {
		if strings.IndexByte(orderDigits, key[i]) < 0 {
			return errOrderKey
		}
	}
	if len(key) > n && key[len(key)-1] == orderDigits[0] {
		return errOrderKey
	}
	return nil
}

// incrementInteger is the next integer part ("" past the largest).
func incrementInteger(x string) string {
	head, digs := x[0], []byte(x[1:])
	carry := true
	for i := len(digs) - 1; carry && i >= 0; i-- {
		d := strings.IndexByte(orderDigits, digs[i]) + 1
		if d == len(orderDigits) {
			digs[i] = orderDigits[0]
		} else {
			digs[i] = orderDigits[d]
			carry = false
		}
	}
	if !carry {
		return string(head) + string(digs)
	}
	switch head {
	case 'Z':
		return "a" + orderDigits[:1]
	case 'z':
		return ""
	}
	h := head + 1
	if h > 'a' {
		digs = append(digs, orderDigits[0])
	} else {
		digs = digs[:len(digs)-1]
	}
	return string(h) + string(digs)
}

// decrementInteger is the previous integer part ("" below the smallest).
func decrementInteger(x string) string {
	head, digs := x[0], []byte(x[1:])
	borrow := true
	for i := len(digs) - 1; borrow && i >= 0; i-- {
		d := strings.IndexByte(orderDigits, digs[i]) - 1
		if d == -1 {
			digs[i] = orderDigits[len(orderDigits)-1]
		} else {
			digs[i] = orderDigits[d]
			borrow = false
		}
	}
	if !borrow {
		return string(head) + string(digs)
	}
	switch head {
	case 'a':
		return "Z" + orderDigits[len(orderDigits)-1:]
	case 'A':
		return ""
	}
	h := head - 1
	if h < 'Z' {
		digs = append(digs, orderDigits[len(orderDigits)-1])
	} else {
		digs = digs[:len(digs)-1]
	}
	return string(h) + string(digs)
}

// KeysAfter returns n keys in order after a ("" : from the start), each
// the next integer: what bulk loaders (bench/seed) give siblings appended
// in order.
func KeysAfter(a string, n int) ([]string, error) {
	out := make([]string, 0, n)
	for range n {
		k, err := keyBetween(a, "")
		if err != nil {
			return nil, err
		}
		out = append(out, k)
		a = k
	}
	return out, nil
}
