package tools

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"
)

// What a file is when it is not text, said in words a person (and the model) understands.

func describeSpecialFile(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// BinaryKind says what a file seems to be when its first bytes are not text, or "" when they
// are. head is the start of the file; atEOF says it is the whole file.
func BinaryKind(head []byte, name string, atEOF bool) string {
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return "UTF-16 encoded text"
	}
	if bytes.IndexByte(head, 0) < 0 && mostlyText(head, atEOF) {
		return ""
	}
	if len(bytes.Trim(head, "\x00")) == 0 {
		return "binary data that starts with nothing but zero bytes"
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, []byte(m.prefix)) {
			return m.kind
		}
	}
	if len(head) > 262 && bytes.Equal(head[257:262], []byte("ustar")) {
		return "a tar archive"
	}
	ext := strings.ToLower(path.Ext(name))
	ct, _, _ := strings.Cut(http.DetectContentType(head[:min(len(head), 512)]), ";")
	if ct == "application/zip" {
		if kind, ok := zipKinds[ext]; ok {
			return kind
		}
	}
	if kind, ok := contentKinds[ct]; ok {
		return kind
	}
	for prefix, kind := range map[string]string{"image/": "an image", "audio/": "an audio file", "video/": "a video", "font/": "a font file"} {
		if strings.HasPrefix(ct, prefix) {
			return kind
		}
	}
	if kind, ok := extensionKinds[ext]; ok {
		return kind
	}
	return "binary data"
}

// mostlyText reports whether b reads as UTF-8 text: at most one byte in ten is invalid UTF-8 or
// a control character no text uses, so a Latin-1 file with a few accents still counts as text.
func mostlyText(b []byte, atEOF bool) bool {
	bad := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if !atEOF && !utf8.FullRune(b[i:]) {
				break // a character cut by the end of the sample
			}
			bad++
		} else if r < 0x20 && !strings.ContainsRune("\t\n\v\f\r\b\x1b", r) || r == 0x7f {
			bad++
		}
		i += max(size, 1)
	}
	return bad*10 <= len(b)
}

// binaryMagic are file signatures net/http does not know.
var binaryMagic = []struct{ prefix, kind string }{
	{"SQLite format 3\x00", "a SQLite database"},
	{"\x7fELF", "an ELF executable"},
	{"MZ", "a Windows executable"},
	{"\xcf\xfa\xed\xfe", "a Mach-O executable"},
	{"\xce\xfa\xed\xfe", "a Mach-O executable"},
	{"\xca\xfe\xba\xbe", "a Java class file or macOS universal binary"},
	{"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"},
	{"\xfd7zXZ\x00", "an XZ archive"},
	{"BZh", "a bzip2 archive"},
	{"\x28\xb5\x2f\xfd", "a Zstandard archive"},
	{"!<arch>\n", "an ar archive (a static library or .deb package)"},
}

var contentKinds = map[string]string{
	"image/png":                     "a PNG image",
	"image/jpeg":                    "a JPEG image",
	"image/gif":                     "a GIF image",
	"image/webp":                    "a WebP image",
	"image/bmp":                     "a BMP image",
	"image/x-icon":                  "an icon file",
	"application/pdf":               "a PDF document",
	"application/zip":               "a ZIP archive",
	"application/x-gzip":            "a gzip archive",
	"application/x-rar-compressed":  "a RAR archive",
	"application/wasm":              "a WebAssembly module",
	"application/ogg":               "an Ogg media file",
	"application/vnd.ms-fontobject": "a font file",
}

// zipKinds name the formats that are ZIP archives inside.
var zipKinds = map[string]string{
	".jar":  "a Java archive (ZIP)",
	".docx": "a Word document (ZIP)",
	".xlsx": "an Excel workbook (ZIP)",
	".pptx": "a PowerPoint presentation (ZIP)",
	".apk":  "an Android package (ZIP)",
	".whl":  "a Python wheel (ZIP)",
}

var extensionKinds = map[string]string{
	".pyc":   "compiled Python bytecode",
	".o":     "an object file",
	".obj":   "an object file",
	".class": "a Java class file",
	".db":    "a database file",
}
