package checkpoint

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"gantry/internal/store"
)

// modeBits are the parts of a file's mode that undo restores.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// fileState is a file on disk as a snapshot sees it.
type fileState struct {
	exists  bool
	regular bool // false for a folder, link or device where the file was
	data    []byte
	mode    fs.FileMode
	sum     string
}

// readState reads path without following a link at path, so a link is seen as what it is.
func readState(path string) (*fileState, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return &fileState{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return &fileState{exists: true}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &fileState{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &fileState{exists: true, regular: true, data: data, mode: fi.Mode() & modeBits}, nil
}

// hash names the state as snapshots do: the content's hash, "" when nothing is there.
func (st *fileState) hash() string {
	if st.regular && st.sum == "" {
		st.sum = store.Hash(st.data)
	}
	return st.sum
}

// is reports whether the file is the recorded state hash ("" for "does not exist"). Something
// other than a file where the file was matches nothing.
func (st *fileState) is(hash string) bool {
	if hash == "" {
		return !st.exists
	}
	return st.regular && st.hash() == hash
}

// removeCreated deletes a file the run created, then each folder above it that the run created
// (created holds them all) as long as it is empty: folders that were there before, or that now
// hold something else, stay. It returns the folder whose entries changed last, to be synced.
func removeCreated(path string, created map[string]bool) (string, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir := filepath.Dir(path)
	for ; created[dir]; dir = filepath.Dir(dir) {
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.IsDir() || os.Remove(dir) != nil {
			break
		}
	}
	return dir, nil
}

// createdDirs collects the folders a checkpoint's files created: one file's new folder may be
// shared with another created file, and whichever is undone last removes it.
func createdDirs(snaps []store.FileSnapshot) map[string]bool {
	dirs := map[string]bool{}
	for _, s := range snaps {
		for _, d := range s.CreatedDirs {
			dirs[d] = true
		}
	}
	return dirs
}

// fileLocks serialise the operations on one file within the process, so that a keep cannot slip
// between an undo's check and its write. They are striped by path, a fixed set however many
// files a session touches.
var fileLocks [64]sync.Mutex

// lockFile locks path's stripe and returns the unlock.
func lockFile(path string) func() { return lockFiles([]string{path}) }

// lockFiles locks the stripes of paths and returns the unlock. Stripes are taken in one order
// by everyone, so that two undos of many files never each wait for a stripe the other holds.
func lockFiles(paths []string) func() {
	var stripes [len(fileLocks)]bool
	for _, path := range paths {
		h := fnv.New32a()
		h.Write([]byte(path))
		stripes[h.Sum32()%uint32(len(fileLocks))] = true
	}
	for i, lock := range stripes {
		if lock {
			fileLocks[i].Lock()
		}
	}
	return func() {
		for i, lock := range stripes {
			if lock {
				fileLocks[i].Unlock()
			}
		}
	}
}
