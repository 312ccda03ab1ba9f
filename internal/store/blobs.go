package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	// Only to read blobs stored before S2 (encodingDeflate).
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/s2"
)

// Blob encodings (blobs.encoding). New blobs are S2 (Snappy's extension), or raw. Snapshots and
// undos of whole projects wait on the compression: on source text S2 compresses about 3 times
// as fast as deflate at its fastest level and decompresses 4 times as fast, and stores about a
// third more (this repository's Go files shrink 2.0 times instead of 2.7).
const (
	encodingRaw     = 0
	encodingDeflate = 1 // read only: what databases before S2 hold
	encodingS2      = 2
)

// Hash is how blobs are named: the sha256 of the raw bytes, in hex.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutBlob stores data once, however often it is put, and returns its hash.
func (db *DB) PutBlob(ctx context.Context, data []byte) (string, error) {
	b, err := db.prepareBlob(ctx, data)
	if err != nil {
		return "", err
	}
	if err := db.write(ctx, func(tx *sql.Tx) error { return db.insertBlob(ctx, tx, b) }); err != nil {
		return "", fmt.Errorf("storing checkpoint blob: %w", err)
	}
	return b.hash, nil
}

// GetBlob returns the bytes stored under hash, checked against it.
func (db *DB) GetBlob(ctx context.Context, hash string) ([]byte, error) {
	var size int64
	var encoding int
	var stored []byte
	q, err := db.stmt(ctx, `SELECT size, encoding, data FROM blobs WHERE hash = ?`)
	if err == nil {
		err = q.QueryRowContext(ctx, hash).Scan(&size, &encoding, &stored)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("checkpoint blob %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint blob %s: %w", hash, err)
	}
	data, err := decodeBlob(encoding, stored, size)
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint blob %s: %w", hash, err)
	}
	if Hash(data) != hash {
		return nil, fmt.Errorf("checkpoint blob %s is corrupt: its content does not match its hash", hash)
	}
	return data, nil
}

// pendingBlob is content about to be stored. It is hashed and compressed before the write
// transaction, so other writers (the event log) do not wait on the compression.
type pendingBlob struct {
	hash     string
	raw      []byte
	encoding int
	encoded  []byte // nil while the blob was already stored and needs no encoding
}

func (db *DB) prepareBlob(ctx context.Context, data []byte) (*pendingBlob, error) {
	b := &pendingBlob{hash: Hash(data), raw: data}
	q, err := db.stmt(ctx, selectBlobExists)
	var stored bool
	if err == nil {
		stored, err = blobExists(ctx, q, b.hash)
	}
	if err != nil {
		return nil, fmt.Errorf("looking up checkpoint blob: %w", err)
	}
	if !stored {
		b.encode()
	}
	return b, nil
}

// insertBlob stores b in tx unless it is there already.
func (db *DB) insertBlob(ctx context.Context, tx *sql.Tx, b *pendingBlob) error {
	if b.encoded == nil {
		// It was stored a moment ago, but deleting a session may have collected it since.
		q, err := db.txStmt(ctx, tx, selectBlobExists)
		if err != nil {
			return err
		}
		stored, err := blobExists(ctx, q, b.hash)
		if err != nil || stored {
			return err
		}
		b.encode()
	}
	q, err := db.txStmt(ctx, tx, `
		INSERT INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, b.hash, len(b.raw), b.encoding, b.encoded)
	return err
}

const selectBlobExists = `SELECT 1 FROM blobs WHERE hash = ?`

func blobExists(ctx context.Context, q *sql.Stmt, hash string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Readers of deflated blobs are pooled: each holds a 32 KB window and its tables, and an undo
// decompresses one file after another.
var inflaters = sync.Pool{New: func() any { return flate.NewReader(nil) }}

// encode compresses the blob, or keeps it raw when compressing does not make it smaller
// (images, archives, already compressed data).
func (b *pendingBlob) encode() {
	if encoded := s2.Encode(nil, b.raw); len(encoded) < len(b.raw) {
		b.encoding, b.encoded = encodingS2, encoded
		return
	}
	b.encoding, b.encoded = encodingRaw, b.raw
	if b.encoded == nil {
		b.encoded = []byte{} // an empty file is an empty BLOB, not NULL
	}
}

func decodeBlob(encoding int, stored []byte, size int64) ([]byte, error) {
	switch encoding {
	case encodingRaw:
		return stored, nil
	case encodingS2:
		if n, err := s2.DecodedLen(stored); err != nil || int64(n) != size {
			return nil, fmt.Errorf("decompressing: the content is not %d bytes long", size)
		}
		out, err := s2.Decode(make([]byte, size), stored)
		if err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		return out, nil
	case encodingDeflate:
		r := inflaters.Get().(io.ReadCloser)
		defer inflaters.Put(r)
		if err := r.(flate.Resetter).Reset(bytes.NewReader(stored), nil); err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		// Exactly the size stored: a growing buffer would copy the content again at its end.
		out := make([]byte, size)
		if _, err := io.ReadFull(r, out); err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unknown encoding %d", encoding)
	}
}

// deleteUnusedBlobs removes the contents no snapshot refers to any more.
func deleteUnusedBlobs(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `
		DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM file_snapshots WHERE prior_hash = blobs.hash)`)
	return err
}
