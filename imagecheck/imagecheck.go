// Package imagecheck reads an image's declared dimensions before anything
// decodes it: a small file can declare a huge image (a 27 KB one-bit PNG of
// 15000x15000 decodes to 225 MB, and 65535x65535 to 4 GB), and decoding
// allocates for the declared size.
package imagecheck

import (
	"bytes"
	"fmt"
	"image"
)

// MaxPixels is the largest image docsapi decodes (width x height): 16.7
// megapixels, 64 MB as RGBA.
const MaxPixels = 4096 * 4096

// TooLargeError is an image whose declared size is over MaxPixels.
type TooLargeError struct{ Width, Height int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the image is %dx%d pixels, more than %d", e.Width, e.Height, MaxPixels)
}

// Config returns the declared dimensions and format of data, and a
// *TooLargeError when it is over MaxPixels (or not positive).
func Config(data []byte) (image.Config, string, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return cfg, format, err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return cfg, format, &TooLargeError{Width: cfg.Width, Height: cfg.Height}
	}
	return cfg, format, nil
}
