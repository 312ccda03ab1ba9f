// Package trust remembers which folders the person trusts to run their own code (SPEC §8,
// modelled on VS Code's Workspace Trust). An opened folder is untrusted until the person says
// otherwise: its programs, package scripts, build files, language-server plugins and git hooks
// do not run without their approval. Trust is kept per folder, outside the folder (a folder
// cannot trust itself), covers the folders inside it, and can be taken back.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"gantry/internal/fsutil"
)

// Folder is one trusted folder.
type Folder struct {
	Path  string    `json:"path"` // absolute, symbolic links resolved
	Since time.Time `json:"since"`
}

// Checker answers whether a folder is trusted. Implementations are safe for concurrent use.
type Checker interface {
	Trusted(folder string) bool
}

// Store is a Checker the person's answers change: "Trust this folder" on an approval card, and
// Remove in Settings.
type Store interface {
	Checker
	Trust(folder string) error
	Revoke(folder string) error
	Folders() []Folder
}

// FileStore keeps the trusted folders in a JSON file next to settings.json, written atomically
// on every change. A file that cannot be read trusts nothing: it is moved aside (so the next
// save does not destroy it) and Problem says what happened.
type FileStore struct {
	path    string
	problem string

	mu      sync.Mutex
	folders []Folder
}

// fileLayout is the file's shape; the object leaves room for more than the list.
type fileLayout struct {
	Folders []Folder `json:"folders"`
}

// Open loads the trusted folders at path; a missing file means none yet.
func Open(path string) *FileStore {
	s := &FileStore{path: path}
	s.folders, s.problem = load(path)
	return s
}

// Problem is a message for the person when the file could not be used at start, else "".
func (s *FileStore) Problem() string { return s.problem }

// Trusted reports whether folder, or a folder holding it, is trusted.
func (s *FileStore) Trusted(folder string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return covered(s.folders, folder)
}

// Folders lists the trusted folders in the order they were trusted.
func (s *FileStore) Folders() []Folder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.folders)
}

// Trust adds folder; trusting a folder already trusted changes nothing.
func (s *FileStore) Trust(folder string) error {
	p, err := canonical(folder)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.ContainsFunc(s.folders, func(f Folder) bool { return f.Path == p }) {
		return nil
	}
	return s.replaceLocked(append(slices.Clone(s.folders), Folder{Path: p, Since: time.Now().UTC()}))
}

// Revoke removes folder; removing one that is not there is not an error. Folders inside it that
// were trusted on their own stay trusted.
func (s *FileStore) Revoke(folder string) error {
	p, err := canonical(folder)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := slices.DeleteFunc(slices.Clone(s.folders), func(f Folder) bool { return f.Path == p || f.Path == filepath.Clean(folder) })
	if len(kept) == len(s.folders) {
		return nil
	}
	return s.replaceLocked(kept)
}

func (s *FileStore) replaceLocked(folders []Folder) error {
	data, err := json.MarshalIndent(fileLayout{Folders: folders}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding trusted folders: %w", err)
	}
	if err := fsutil.WriteFile(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("saving trusted folders: %w", err)
	}
	s.folders = folders
	return nil
}

func load(path string) ([]Folder, string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, fmt.Sprintf("Could not read the trusted folders file %s (%v). Gantry trusts no folder until you trust one again%s.", path, err, keepAside(path))
	}
	var f fileLayout
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Sprintf("The trusted folders file %s is not valid JSON (%v). Gantry trusts no folder until you trust one again%s.", path, err, keepAside(path))
	}
	for _, folder := range f.Folders {
		if !filepath.IsAbs(folder.Path) {
			return nil, fmt.Sprintf("The trusted folders file %s names %q, which is not an absolute path. Gantry trusts no folder until you trust one again%s.", path, folder.Path, keepAside(path))
		}
	}
	return f.Folders, ""
}

// keepAside renames a bad file and returns a phrase naming where it went.
func keepAside(path string) string {
	aside := fmt.Sprintf("%s.broken-%s", path, time.Now().Format("20060102-150405"))
	if err := os.Rename(path, aside); err != nil {
		return fmt.Sprintf("; the file was left in place (%v)", err)
	}
	return fmt.Sprintf("; your old file was kept as %s", aside)
}

// canonical is folder as trust compares it: absolute, clean, with symbolic links resolved when
// it exists, so a link to a trusted folder is trusted and a link inside one pointing out is not.
func canonical(folder string) (string, error) {
	if !filepath.IsAbs(folder) {
		return "", fmt.Errorf("%q is not an absolute path", folder)
	}
	p := filepath.Clean(folder)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p, nil
}

// covered reports whether folder is one of folders or inside one.
func covered(folders []Folder, folder string) bool {
	p, err := canonical(folder)
	if err != nil {
		return false
	}
	for _, f := range folders {
		if p == f.Path || strings.HasPrefix(p, f.Path+string(filepath.Separator)) || f.Path == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// Memory is a Store that forgets when the process ends: tests, and `gantry run --trust`, which
// trusts its workspace for that run only. Its zero value trusts nothing.
type Memory struct {
	mu      sync.Mutex
	folders []Folder
}

// Trusting returns a Memory that trusts folders.
func Trusting(folders ...string) *Memory {
	m := &Memory{}
	for _, f := range folders {
		_ = m.Trust(f)
	}
	return m
}

func (m *Memory) Trusted(folder string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return covered(m.folders, folder)
}

func (m *Memory) Trust(folder string) error {
	p, err := canonical(folder)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders = append(m.folders, Folder{Path: p, Since: time.Now().UTC()})
	return nil
}

func (m *Memory) Revoke(folder string) error {
	p, err := canonical(folder)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.folders = slices.DeleteFunc(m.folders, func(f Folder) bool { return f.Path == p })
	return nil
}

func (m *Memory) Folders() []Folder {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.folders)
}

// Either trusts what any of its checkers trusts and stores new trust in the first: `gantry run`
// honours the folders trusted in the app, plus --trust for its own workspace.
type Either []Store

func (e Either) Trusted(folder string) bool {
	return slices.ContainsFunc(e, func(s Store) bool { return s.Trusted(folder) })
}

func (e Either) Trust(folder string) error { return e[0].Trust(folder) }

func (e Either) Revoke(folder string) error {
	var errs []error
	for _, s := range e {
		errs = append(errs, s.Revoke(folder))
	}
	return errors.Join(errs...)
}

func (e Either) Folders() []Folder {
	var out []Folder
	for _, s := range e {
		out = append(out, s.Folders()...)
	}
	return out
}
