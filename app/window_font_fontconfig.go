//go:build desktop && linux

package app

/*
#cgo pkg-config: fontconfig
#include <fontconfig/fontconfig.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { GANTRY_FONT_MISS, GANTRY_FONT_FOUND, GANTRY_FONT_UNSURE };

// The names WebKitGTK takes whatever fontconfig matches for.
static int gantry_generic_family(const char *family) {
	static const char *generic[] = {"sans", "sans-serif", "serif", "monospace", "fantasy", "cursive", NULL};
	for (int i = 0; generic[i] != NULL; i++) {
		if (strcasecmp(family, generic[i]) == 0) {
			return 1;
		}
	}
	return 0;
}

// gantry_font_lookup asks fontconfig for one CSS family name as WebKitGTK does (scalable fonts, the
// page's language, the configuration's substitutions, then the best match) and judges the answer
// as it does: FOUND when the match is that family (its file and family name go to *file, *index and
// *name, freed by the caller) or the name is generic; MISS when fontconfig fell back to another
// family; UNSURE when the match came through a strong alias or binding, where WebKitGTK versions
// decide differently.
static int gantry_font_lookup(const char *family, const char *lang, char **file, int *index, char **name) {
	FcPattern *pattern = FcPatternCreate();
	FcPatternAddBool(pattern, FC_SCALABLE, FcTrue);
	FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *)family);
	FcPatternAddString(pattern, FC_LANG, (const FcChar8 *)lang);
	FcConfigSubstitute(NULL, pattern, FcMatchPattern);
	FcDefaultSubstitute(pattern);

	FcChar8 *configured = NULL;
	FcPatternGetString(pattern, FC_FAMILY, 0, &configured);
	int last_strong = -1;
	FcValue value;
	FcValueBinding binding;
	for (int i = 0; FcPatternGetWithBinding(pattern, FC_FAMILY, i, &value, &binding) == FcResultMatch; i++) {
		if (binding != FcValueBindingWeak) {
			last_strong = i;
		}
	}

	FcResult result;
	FcPattern *match = FcFontMatch(NULL, pattern, &result);
	int verdict = GANTRY_FONT_MISS;
	for (int i = 0; match != NULL && FcPatternGetWithBinding(match, FC_FAMILY, i, &value, &binding) == FcResultMatch; i++) {
		const char *matched = (const char *)value.u.s;
		if (gantry_generic_family(family) || (configured != NULL && strcasecmp((const char *)configured, matched) == 0)) {
			verdict = GANTRY_FONT_FOUND;
			break;
		}
		if (binding != FcValueBindingWeak) {
			verdict = GANTRY_FONT_UNSURE;
		}
		FcValue alias;
		for (int j = 0; j <= last_strong && FcPatternGet(pattern, FC_FAMILY, j, &alias) == FcResultMatch; j++) {
			if (strcasecmp((const char *)alias.u.s, matched) == 0) {
				verdict = GANTRY_FONT_UNSURE;
			}
		}
	}
	if (verdict == GANTRY_FONT_FOUND) {
		FcChar8 *f = NULL, *n = NULL;
		FcPatternGetString(match, FC_FILE, 0, &f);
		FcPatternGetString(match, FC_FAMILY, 0, &n);
		*index = 0;
		FcPatternGetInteger(match, FC_INDEX, 0, index);
		*file = f != NULL ? strdup((const char *)f) : NULL;
		*name = n != NULL ? strdup((const char *)n) : NULL;
	}
	if (match != NULL) {
		FcPatternDestroy(match);
	}
	FcPatternDestroy(pattern);
	return verdict;
}

// gantry_same_font: the installed family name `name` is found at the first try and is the font
// file the stack came to.
static int gantry_same_font(const char *name, const char *lang, const char *file, int index) {
	char *file2 = NULL, *name2 = NULL;
	int index2 = 0;
	int same = gantry_font_lookup(name, lang, &file2, &index2, &name2) == GANTRY_FONT_FOUND &&
		file != NULL && file2 != NULL && strcmp(file, file2) == 0 && index == index2;
	free(file2);
	free(name2);
	return same;
}
*/
import "C"

import "unsafe"

// pageLang is index.html's lang, which WebKitGTK passes to fontconfig with every lookup.
const pageLang = "en"

// resolveFontStack returns the installed family WebKitGTK would pick for the CSS stack, when
// putting it first picks the same font file; else "" (the stack is then left as it is).
func resolveFontStack(stack []string) string {
	lang := C.CString(pageLang)
	defer C.free(unsafe.Pointer(lang))
	for _, family := range stack {
		name := C.CString(family)
		var file, found *C.char
		var index C.int
		verdict := C.gantry_font_lookup(name, lang, &file, &index, &found)
		C.free(unsafe.Pointer(name))
		switch verdict {
		case C.GANTRY_FONT_MISS:
			continue
		case C.GANTRY_FONT_UNSURE:
			return ""
		}
		resolved := ""
		if found != nil && C.gantry_same_font(found, lang, file, index) != 0 {
			resolved = C.GoString(found)
		}
		C.free(unsafe.Pointer(file))
		C.free(unsafe.Pointer(found))
		return resolved
	}
	return ""
}
