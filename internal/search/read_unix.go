//go:build unix

package search

import "syscall"

// readFile reads a regular file whole into *buf (grown as needed). It makes the system calls
// itself because os.Open also sets the descriptor non-blocking and tries to register it with
// the poller: two calls wasted on every regular file, about 6% of a search. O_NOFOLLOW and
// O_NONBLOCK keep a symlink or FIFO that replaced a file since the walk from being followed
// or hanging the search.
func readFile(name string, buf *[]byte) ([]byte, outcome) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unreadable
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, unreadable
	}
	if st.Size > maxFileSize {
		return nil, skippedLarge
	}
	data := grow(buf, int(st.Size))
	n := 0
	for n < len(data) {
		k, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, unreadable
		}
		if k == 0 {
			break // the file shrank since Fstat: search what is there
		}
		n += k
	}
	return data[:n], searched
}
