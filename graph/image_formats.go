package graph

import (
	"encoding/xml"
	"errors"
	"image"
	"io"
	"math"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // WebP dimensions of uploaded and imported files
)

// Files get their dimensions from image.DecodeConfig (newFile). Besides the
// standard library's PNG, JPEG and GIF, WebP registers itself above, and
// SVG is registered here with a config reader only: its size comes from the
// root element's width and height (in px or unitless), else its viewBox.
// Decoding an SVG to pixels is not supported (image.Decode answers an
// error), which nothing in docsapi needs.
func init() {
	for _, magic := range []string{"<svg", "<?xml", "<!DOCTYPE svg", "<!--"} {
		image.RegisterFormat("svg", magic, decodeSVG, decodeSVGConfig)
	}
}

var errSVG = errors.New("svg: not an SVG image with a size")

func decodeSVG(io.Reader) (image.Image, error) {
	return nil, errors.New("svg: rendering is not supported")
}

// decodeSVGConfig reads the root element of an SVG document.
func decodeSVGConfig(r io.Reader) (image.Config, error) {
	d := xml.NewDecoder(io.LimitReader(r, 1<<20))
	d.Strict = false
	for {
		tok, err := d.Token()
		if err != nil {
			return image.Config{}, errSVG
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Local != "svg" {
			return image.Config{}, errSVG
		}
		var w, h float64
		var viewBox string
		for _, a := range el.Attr {
			switch a.Name.Local {
			case "width":
				w = svgLength(a.Value)
			case "height":
				h = svgLength(a.Value)
			case "viewBox":
				viewBox = a.Value
			}
		}
		if w <= 0 || h <= 0 {
			f := strings.FieldsFunc(viewBox, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
			if len(f) == 4 {
				vw, err1 := strconv.ParseFloat(f[2], 64)
				vh, err2 := strconv.ParseFloat(f[3], 64)
				if err1 == nil && err2 == nil {
					// One given side keeps the viewBox's aspect ratio.
					switch {
					case w > 0 && vw > 0:
						h = w * vh / vw
					case h > 0 && vh > 0:
						w = h * vw / vh
					default:
						w, h = vw, vh
					}
				}
			}
		}
		if w <= 0 || h <= 0 || w > 1e6 || h > 1e6 {
			return image.Config{}, errSVG
		}
		return image.Config{Width: int(math.Round(w)), Height: int(math.Round(h))}, nil
	}
}

// svgLength is a length in CSS pixels: unitless or px (other units and
// percentages have no intrinsic size and answer 0).
func svgLength(v string) float64 {
	v = strings.TrimSuffix(strings.TrimSpace(v), "px")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0
	}
	return f
}
