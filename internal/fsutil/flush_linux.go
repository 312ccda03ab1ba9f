package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncfsTrusted are the file systems (statfs f_type) on which syncfs(2) writes out every dirty
// file's data and metadata and flushes the disk's cache before it returns. On the others
// (FUSE, network and overlay file systems among them) it may return with data still in flight,
// so a batch syncs each file there.
var syncfsTrusted = map[uint32]bool{
	unix.EXT4_SUPER_MAGIC:  true, // also ext2 and ext3
	unix.XFS_SUPER_MAGIC:   true,
	unix.BTRFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC:  true,
	unix.TMPFS_MAGIC:       true, // nothing to write out
}

// openFlusher opens dir for flushing its file system with flushFS, and returns the device it
// is on; ok is false where syncfs is not to be trusted.
func openFlusher(dir string) (dev uint64, f *os.File, ok bool) {
	var fsInfo unix.Statfs_t
	if unix.Statfs(dir, &fsInfo) != nil || !syncfsTrusted[uint32(fsInfo.Type)] {
		return 0, nil, false
	}
	f, err := os.Open(dir)
	if err != nil {
		return 0, nil, false
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		f.Close()
		return 0, nil, false
	}
	return uint64(st.Dev), f, true
}

// flushFS is syncfs(2) on f's file system. Since Linux 5.8 it also reports write-back errors
// that happened anywhere on the file system since f was opened.
func flushFS(f *os.File) error {
	return unix.Syncfs(int(f.Fd()))
}

// startWriteback asks the kernel to start writing f's data out without waiting for it
// (sync_file_range(2) with SYNC_FILE_RANGE_WRITE), so that a flush later has less left to do.
// It promises nothing about durability: flushFS does. Failing, it leaves all the work to it.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
