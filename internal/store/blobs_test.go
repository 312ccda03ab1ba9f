package store

import (
	"bytes"
	stdflate "compress/flate"
	"context"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func blobRow(t *testing.T, db *DB, hash string) (encoding int, stored int) {
	t.Helper()
	require.NoError(t, db.sql.QueryRow(`SELECT encoding, LENGTH(data) FROM blobs WHERE hash = ?`, hash).Scan(&encoding, &stored))
	return encoding, stored
}

func TestPutBlobStoresEachContentOnce(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	text := []byte(strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 2000))

	first, err := db.PutBlob(ctx, text)
	require.NoError(t, err)
	require.Equal(t, Hash(text), first)
	second, err := db.PutBlob(ctx, append([]byte{}, text...))
	require.NoError(t, err)
	require.Equal(t, first, second)
	var rows int
	require.NoError(t, db.sql.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&rows))
	require.Equal(t, 1, rows)

	encoding, stored := blobRow(t, db, first)
	require.Equal(t, encodingS2, encoding)
	require.Less(t, stored, len(text)/10, "repetitive text compresses")
	got, err := db.GetBlob(ctx, first)
	require.NoError(t, err)
	require.Equal(t, text, got)
}

func TestIncompressibleAndEmptyBlobsAreStoredRaw(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	random := make([]byte, 256<<10)
	_, _ = rand.Read(random)

	for _, data := range [][]byte{random, {}} {
		hash, err := db.PutBlob(ctx, data)
		require.NoError(t, err)
		encoding, stored := blobRow(t, db, hash)
		require.Equal(t, encodingRaw, encoding)
		require.Equal(t, len(data), stored)
		got, err := db.GetBlob(ctx, hash)
		require.NoError(t, err)
		require.Len(t, got, len(data))
		require.Equal(t, Hash(data), Hash(got))
	}
}

func TestGetBlobRefusesCorruptOrMissingContent(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	hash, err := db.PutBlob(ctx, []byte{0, 1, 2, 3, 4, 5, 6, 7})
	require.NoError(t, err)
	_, err = db.sql.Exec(`UPDATE blobs SET data = X'0001020304050607FF' WHERE hash = ?`, hash)
	require.NoError(t, err)
	_, err = db.GetBlob(ctx, hash)
	require.ErrorContains(t, err, "corrupt")

	_, err = db.GetBlob(ctx, Hash([]byte("never stored")))
	require.ErrorIs(t, err, ErrNotFound)
}

// Blobs stored before S2, deflated (by the standard library's implementation, before that by
// klauspost's), read back.
func TestBlobsDeflatedBeforeS2ReadBack(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	text := []byte(strings.Repeat("package main\n\nfunc main() {}\n", 3000))
	var buf bytes.Buffer
	w, err := stdflate.NewWriter(&buf, stdflate.BestSpeed)
	require.NoError(t, err)
	_, err = w.Write(text)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = db.sql.Exec(`INSERT INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?)`, Hash(text), len(text), encodingDeflate, buf.Bytes())
	require.NoError(t, err)
	got, err := db.GetBlob(context.Background(), Hash(text))
	require.NoError(t, err)
	require.Equal(t, text, got)
}

// A compressed blob cut short or damaged is refused with a clear error, never handed back as
// content for an undo to write.
func TestDamagedCompressedBlobIsRefused(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	text := []byte(strings.Repeat("fn main() { println!(\"hello\"); }\n", 500))
	hash, err := db.PutBlob(ctx, text)
	require.NoError(t, err)
	encoding, stored := blobRow(t, db, hash)
	require.Equal(t, encodingS2, encoding)

	_, err = db.sql.Exec(`UPDATE blobs SET data = SUBSTR(data, 1, ?) WHERE hash = ?`, stored/2, hash)
	require.NoError(t, err)
	_, err = db.GetBlob(ctx, hash)
	require.ErrorContains(t, err, "decompressing")

	_, err = db.sql.Exec(`UPDATE blobs SET data = X'00' WHERE hash = ?`, hash)
	require.NoError(t, err)
	_, err = db.GetBlob(ctx, hash)
	require.ErrorContains(t, err, "decompressing")
}

// The database takes only the encodings this version reads: a blob it could not read back must
// not get in.
func TestUnknownBlobEncodingsAreRefused(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	_, err := db.sql.Exec(`INSERT INTO blobs (hash, size, encoding, data) VALUES ('x', 1, 7, X'00')`)
	require.ErrorContains(t, err, "unknown blob encoding")
}
