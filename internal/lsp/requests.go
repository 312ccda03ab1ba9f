package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Location is a range in a file, in people's terms (1-based lines and characters).
type Location struct {
	File       string // absolute
	Start, End Pos
}

// Symbol is a named thing a server knows: a function, a type, a field.
type Symbol struct {
	Name      string
	Kind      string // "function", "struct", …
	Detail    string // a signature or type, when the server gives one
	Container string // what it is declared in, for workspace symbols
	Location  Location
	Depth     int // nesting in a document outline, 0 at the top
}

// CallItem is one function in a call hierarchy, and where the calls between it and the
// function asked about happen.
type CallItem struct {
	Symbol
	Sites []Location
}

// lineCache reads each file once per request, to turn UTF-16 positions into characters.
type lineCache map[string][]string

func (lc lineCache) lines(file string) []string {
	if l, ok := lc[file]; ok {
		return l
	}
	data, err := os.ReadFile(file)
	var l []string
	if err == nil {
		l = strings.Split(string(data), "\n")
	}
	lc[file] = l
	return l
}

func (lc lineCache) location(u protocol.DocumentURI, r protocol.Range) Location {
	file := uri.URI(u).Filename()
	l := lc.lines(file)
	return Location{File: file, Start: fromWire(l, r.Start.Line, r.Start.Character), End: fromWire(l, r.End.Line, r.End.Character)}
}

// at is the textDocument/position params for pos in file.
func (c *Client) at(ctx context.Context, file string, pos Pos) (map[string]any, error) {
	if _, err := c.sync(ctx, file); err != nil {
		return nil, err
	}
	c.mu.Lock()
	text := c.docs[uri.File(file)].text
	c.mu.Unlock()
	line, char := toWire(strings.Split(text, "\n"), pos)
	return map[string]any{
		"textDocument": map[string]any{"uri": uri.File(file)},
		"position":     map[string]any{"line": line, "character": char},
	}, nil
}

// Supports reports whether the server offers a request, by its capability name
// ("referencesProvider").
func (c *Client) Supports(capability string) bool { return c.caps.has(capability) }

// locations asks one of the requests answered by Location | Location[] | LocationLink[].
func (c *Client) locations(ctx context.Context, method, file string, pos Pos, extra map[string]any) ([]Location, error) {
	params, err := c.at(ctx, file, pos)
	if err != nil {
		return nil, err
	}
	for k, v := range extra {
		params[k] = v
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw, lineCache{})
}

func decodeLocations(raw json.RawMessage, lc lineCache) ([]Location, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' {
		raw = json.RawMessage("[" + string(raw) + "]")
	}
	var items []struct {
		URI                  protocol.DocumentURI `json:"uri"`
		Range                *protocol.Range      `json:"range"`
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange *protocol.Range      `json:"targetSelectionRange"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("reading the server's locations: %w", err)
	}
	var out []Location
	for _, it := range items {
		switch {
		case it.TargetURI != "" && it.TargetSelectionRange != nil:
			out = append(out, lc.location(it.TargetURI, *it.TargetSelectionRange))
		case it.URI != "" && it.Range != nil:
			out = append(out, lc.location(it.URI, *it.Range))
		}
	}
	return out, nil
}

// Definition is where the symbol at pos is declared.
func (c *Client) Definition(ctx context.Context, file string, pos Pos) ([]Location, error) {
	return c.locations(ctx, "textDocument/definition", file, pos, nil)
}

// References are the places that use the symbol at pos, its declaration included.
func (c *Client) References(ctx context.Context, file string, pos Pos) ([]Location, error) {
	return c.locations(ctx, "textDocument/references", file, pos, map[string]any{"context": map[string]any{"includeDeclaration": true}})
}

// Implementations are the concrete types or methods implementing the interface or method at pos.
func (c *Client) Implementations(ctx context.Context, file string, pos Pos) ([]Location, error) {
	return c.locations(ctx, "textDocument/implementation", file, pos, nil)
}

// Hover is the server's description of the symbol at pos (a signature and its documentation),
// as text.
func (c *Client) Hover(ctx context.Context, file string, pos Pos) (string, error) {
	params, err := c.at(ctx, file, pos)
	if err != nil {
		return "", err
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := c.call(ctx, "textDocument/hover", params, &h); err != nil {
		return "", err
	}
	return hoverText(h.Contents), nil
}

// hoverText reads MarkupContent, a MarkedString or a list of them.
func hoverText(raw json.RawMessage) string {
	var markup struct {
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	var s string
	var list []json.RawMessage
	switch {
	case json.Unmarshal(raw, &s) == nil:
		return strings.TrimSpace(s)
	case json.Unmarshal(raw, &list) == nil:
		var parts []string
		for _, item := range list {
			if t := hoverText(item); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	case json.Unmarshal(raw, &markup) == nil:
		if markup.Language != "" {
			return "```" + markup.Language + "\n" + strings.TrimSpace(markup.Value) + "\n```"
		}
		return strings.TrimSpace(markup.Value)
	}
	return ""
}

// DocumentSymbols is the file's outline, in order, nested declarations after their parent.
func (c *Client) DocumentSymbols(ctx context.Context, file string) ([]Symbol, error) {
	if _, err := c.sync(ctx, file); err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri.File(file)}}, &raw); err != nil {
		return nil, err
	}
	lc := lineCache{}
	var out []Symbol
	var walk func(items []json.RawMessage, depth int)
	walk = func(items []json.RawMessage, depth int) {
		for _, item := range items {
			var s struct {
				Name           string               `json:"name"`
				Kind           protocol.SymbolKind  `json:"kind"`
				Detail         string               `json:"detail"`
				SelectionRange *protocol.Range      `json:"selectionRange"`
				Children       []json.RawMessage    `json:"children"`
				Location       *protocol.Location   `json:"location"`
				ContainerName  string               `json:"containerName"`
				URI            protocol.DocumentURI `json:"-"`
			}
			if json.Unmarshal(item, &s) != nil {
				continue
			}
			sym := Symbol{Name: s.Name, Kind: kindName(s.Kind), Detail: s.Detail, Container: s.ContainerName, Depth: depth}
			switch {
			case s.SelectionRange != nil:
				sym.Location = lc.location(protocol.DocumentURI(uri.File(file)), *s.SelectionRange)
			case s.Location != nil:
				sym.Location = lc.location(s.Location.URI, s.Location.Range)
			}
			out = append(out, sym)
			walk(s.Children, depth+1)
		}
	}
	walk(raw, 0)
	// SymbolInformation lists come flat and in any order.
	slices.SortStableFunc(out, func(a, b Symbol) int {
		if a.Depth != b.Depth || a.Location.File != b.Location.File {
			return 0
		}
		return a.Location.Start.Line - b.Location.Start.Line
	})
	return out, nil
}

// WorkspaceSymbols are the symbols whose names match query anywhere in the workspace.
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error) {
	var raw []struct {
		Name          string              `json:"name"`
		Kind          protocol.SymbolKind `json:"kind"`
		ContainerName string              `json:"containerName"`
		Location      struct {
			URI   protocol.DocumentURI `json:"uri"`
			Range *protocol.Range      `json:"range"`
		} `json:"location"`
	}
	if err := c.call(ctx, "workspace/symbol", map[string]any{"query": query}, &raw); err != nil {
		return nil, err
	}
	lc := lineCache{}
	out := make([]Symbol, 0, len(raw))
	for _, s := range raw {
		sym := Symbol{Name: s.Name, Kind: kindName(s.Kind), Container: s.ContainerName}
		if s.Location.Range != nil {
			sym.Location = lc.location(s.Location.URI, *s.Location.Range)
		} else {
			sym.Location = Location{File: uri.URI(s.Location.URI).Filename()}
		}
		out = append(out, sym)
	}
	return out, nil
}

// hierarchyItem is a call or type hierarchy item as the server sends it; it goes back as is.
type hierarchyItem struct {
	raw            json.RawMessage
	Name           string               `json:"name"`
	Kind           protocol.SymbolKind  `json:"kind"`
	Detail         string               `json:"detail"`
	URI            protocol.DocumentURI `json:"uri"`
	SelectionRange protocol.Range       `json:"selectionRange"`
}

func (h hierarchyItem) symbol(lc lineCache) Symbol {
	return Symbol{Name: h.Name, Kind: kindName(h.Kind), Detail: h.Detail, Location: lc.location(h.URI, h.SelectionRange)}
}

// prepare asks textDocument/prepareCallHierarchy or prepareTypeHierarchy for the item at pos.
func (c *Client) prepare(ctx context.Context, method, file string, pos Pos) ([]hierarchyItem, error) {
	params, err := c.at(ctx, file, pos)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := c.call(ctx, method, params, &raws); err != nil {
		return nil, err
	}
	items := make([]hierarchyItem, 0, len(raws))
	for _, r := range raws {
		var h hierarchyItem
		if json.Unmarshal(r, &h) == nil {
			h.raw = r
			items = append(items, h)
		}
	}
	return items, nil
}

// Calls are the functions calling the one at pos (incoming) or called by it (outgoing), with
// the function itself; ok is false when there is no function at pos.
func (c *Client) Calls(ctx context.Context, file string, pos Pos, incoming bool) (Symbol, []CallItem, bool, error) {
	items, err := c.prepare(ctx, "textDocument/prepareCallHierarchy", file, pos)
	if err != nil || len(items) == 0 {
		return Symbol{}, nil, false, err
	}
	lc := lineCache{}
	method, key := "callHierarchy/outgoingCalls", "to"
	if incoming {
		method, key = "callHierarchy/incomingCalls", "from"
	}
	var raws []map[string]json.RawMessage
	if err := c.call(ctx, method, map[string]any{"item": items[0].raw}, &raws); err != nil {
		return Symbol{}, nil, false, err
	}
	var out []CallItem
	for _, r := range raws {
		var h hierarchyItem
		var ranges []protocol.Range
		if json.Unmarshal(r[key], &h) != nil {
			continue
		}
		_ = json.Unmarshal(r["fromRanges"], &ranges)
		item := CallItem{Symbol: h.symbol(lc)}
		// fromRanges are in the caller: for incoming calls the other function, for outgoing the
		// one asked about.
		site := h.URI
		if !incoming {
			site = items[0].URI
		}
		for _, rg := range ranges {
			item.Sites = append(item.Sites, lc.location(site, rg))
		}
		out = append(out, item)
	}
	return items[0].symbol(lc), out, true, nil
}

// Types are the supertypes or subtypes of the type at pos, with the type itself; ok is false
// when there is no type at pos.
func (c *Client) Types(ctx context.Context, file string, pos Pos, super bool) (Symbol, []Symbol, bool, error) {
	items, err := c.prepare(ctx, "textDocument/prepareTypeHierarchy", file, pos)
	if err != nil || len(items) == 0 {
		return Symbol{}, nil, false, err
	}
	method := "typeHierarchy/subtypes"
	if super {
		method = "typeHierarchy/supertypes"
	}
	var raws []hierarchyItem
	if err := c.call(ctx, method, map[string]any{"item": items[0].raw}, &raws); err != nil {
		return Symbol{}, nil, false, err
	}
	lc := lineCache{}
	out := make([]Symbol, 0, len(raws))
	for _, h := range raws {
		out = append(out, h.symbol(lc))
	}
	return items[0].symbol(lc), out, true, nil
}

// kindName words an LSP SymbolKind.
func kindName(k protocol.SymbolKind) string {
	names := [...]string{"", "file", "module", "namespace", "package", "class", "method", "property", "field",
		"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
		"array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}
	if i := int(k); i > 0 && i < len(names) {
		return names[i]
	}
	return "symbol"
}

// Problem is a diagnostic in people's terms.
type Problem struct {
	Start    Pos
	Severity string // "error", "warning", "information", "hint"
	Message  string
	Source   string // the checker inside the server ("compiler", "ts"), when it says
	Code     string
}

// Problems are the server's diagnostics for file as it is on disk, waiting up to bound for the
// server to report on it; ok is false when it did not.
func (c *Client) Problems(ctx context.Context, file string, bound time.Duration) ([]Problem, bool, error) {
	items, ok, err := c.Diagnostics(ctx, file, bound)
	if err != nil || !ok {
		return nil, ok, err
	}
	lines := lineCache{}.lines(file)
	out := make([]Problem, 0, len(items))
	for _, d := range items {
		p := Problem{
			Start:    fromWire(lines, d.Range.Start.Line, d.Range.Start.Character),
			Severity: severityName(int(d.Severity)),
			Message:  strings.TrimSpace(d.Message),
			Source:   d.Source,
		}
		if d.Code != nil {
			p.Code = fmt.Sprint(d.Code)
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return a.Start.Line - b.Start.Line })
	return out, true, nil
}

func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "information"
	case 4:
		return "hint"
	}
	return "error" // 1, and a server that gives none
}
