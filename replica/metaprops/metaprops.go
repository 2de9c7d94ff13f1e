package metaprops

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/wire"
)

// FileName is the stamp's name in its directory, Kafka's.
const FileName = "meta.properties"

// MaxFileBytes bounds the stamp: Read refuses a larger file without reading
// it. Kafka's is a few hundred bytes.
const MaxFileBytes = 4096

// maxClusterIDLength bounds a cluster id: Kafka's are 22 characters (a
// base64url UUID).
const maxClusterIDLength = 64

// tempSuffix marks a stamp being written; Write truncates a leftover one.
const tempSuffix = ".tmp"

// The roles a directory can be stamped with: the value of process.roles.
const (
	RoleBroker     = "broker"
	RoleController = "controller"
)

// Sentinel errors. Each carries a wire code, so wire.CodeOf works on them.
var (
	// ErrBadFile is returned by Parse, and so by Read and Ensure, for a
	// stamp that is not a meta.properties of this package's format: too
	// large, a line that is not key=value, a missing or repeated key, a
	// value out of range. The directory is not opened. It carries
	// wire.CodeCorruptMessage.
	ErrBadFile = fmt.Errorf("metaprops: bad %s: %w", FileName, wire.ErrCorruptMessage)
	// ErrInconsistentClusterID is returned by Ensure when the stamp names
	// another cluster than the caller's. It carries
	// wire.CodeInconsistentClusterID.
	ErrInconsistentClusterID = fmt.Errorf("metaprops: %w", wire.ErrInconsistentClusterID)
	// ErrInconsistentNode is returned by Ensure when the stamp names
	// another node id or role than the caller's: the directory is another
	// node's. It carries wire.CodeInvalidRequest, as a configuration that
	// cannot run.
	ErrInconsistentNode = fmt.Errorf("metaprops: the directory is another node's: %w", wire.ErrInvalidRequest)
	// ErrInvalid is returned by Write and Ensure for Properties that cannot
	// be stamped (a negative node id, an unknown role, a cluster id
	// outside [A-Za-z0-9_-]{1,64}). It carries wire.CodeInvalidRequest.
	ErrInvalid = fmt.Errorf("metaprops: invalid properties: %w", wire.ErrInvalidRequest)
)

// Properties is what a stamp says: whose the directory is.
type Properties struct {
	// ClusterID is the cluster's id (Kafka's cluster.id), or empty in a
	// broker's stamp until it learns its cluster at registration.
	ClusterID string
	// NodeID is the node's id (Kafka's node.id): the broker id, or the
	// controller's id.
	NodeID int32
	// Role is RoleBroker or RoleController (process.roles).
	Role string
}

// String describes p for error messages, e.g. "broker 3 of cluster c1".
func (p Properties) String() string {
	s := p.Role + " " + strconv.Itoa(int(p.NodeID))
	if p.ClusterID == "" {
		return s + " of no cluster yet"
	}
	return s + " of cluster " + p.ClusterID
}

func (p Properties) validate() error {
	switch {
	case p.NodeID < 0:
		return fmt.Errorf("%w: node.id %d: ids are >= 0", ErrInvalid, p.NodeID)
	case p.Role != RoleBroker && p.Role != RoleController:
		return fmt.Errorf("%w: process.roles %q: want %s or %s", ErrInvalid, p.Role, RoleBroker, RoleController)
	case p.ClusterID != "" && !ValidClusterID(p.ClusterID):
		return fmt.Errorf("%w: cluster.id %q: want 1 to %d characters of [A-Za-z0-9_-]", ErrInvalid, p.ClusterID, maxClusterIDLength)
	}
	return nil
}

// ValidClusterID reports whether id can be a cluster id: 1 to 64
// characters of the base64url alphabet [A-Za-z0-9_-], which Kafka's 22
// character ids use.
func ValidClusterID(id string) bool {
	if len(id) == 0 || len(id) > maxClusterIDLength {
		return false
	}
	for i := range len(id) {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// header is the comment the stamp starts with.
const header = "#Written by kaenlog: who this directory belongs to. Do not edit.\n"

// Append appends p's stamp to dst in Kafka's meta.properties format
// (version 1) and returns the extended slice: version, cluster.id (left
// out while it is empty), node.id, and process.roles, which Kafka keeps in
// its configuration and kaenlog, having none, keeps here. Parse reads it
// back. It does not validate p; Write does.
func (p Properties) Append(dst []byte) []byte {
	dst = append(dst, header...)
	dst = append(dst, "version=1\n"...)
	if p.ClusterID != "" {
		dst = append(dst, "cluster.id="...)
		dst = append(dst, p.ClusterID...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "node.id="...)
	dst = strconv.AppendInt(dst, int64(p.NodeID), 10)
	dst = append(dst, "\nprocess.roles="...)
	dst = append(dst, p.Role...)
	return append(dst, '\n')
}

// Parse reads a stamp: lines of key=value, with blank lines and comments
// (# or !) skipped and spaces around keys and values trimmed, as a Java
// properties file of plain values. version must be 1 and node.id and
// process.roles present; cluster.id is optional; other keys (Kafka's
// directory.id) are ignored. A repeated key, a line without '=', or a
// value out of range is ErrBadFile.
func Parse(data []byte) (Properties, error) {
	if len(data) > MaxFileBytes {
		return Properties{}, fmt.Errorf("%w: %d bytes, more than %d", ErrBadFile, len(data), MaxFileBytes)
	}
	seen := map[string]string{}
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := bytes.Cut(line, []byte{'='})
		if !ok {
			return Properties{}, fmt.Errorf("%w: line %d is not key=value", ErrBadFile, n)
		}
		key := string(bytes.TrimSpace(k))
		if _, dup := seen[key]; dup {
			return Properties{}, fmt.Errorf("%w: line %d repeats %q", ErrBadFile, n, key)
		}
		seen[key] = string(bytes.TrimSpace(v))
	}
	if v, ok := seen["version"]; !ok || v != "1" {
		return Properties{}, fmt.Errorf("%w: version %q, want 1", ErrBadFile, v)
	}
	var p Properties
	id, ok := seen["node.id"]
	if !ok {
		return Properties{}, fmt.Errorf("%w: no node.id", ErrBadFile)
	}
	n, err := strconv.ParseInt(id, 10, 32)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != id {
		return Properties{}, fmt.Errorf("%w: node.id %q", ErrBadFile, id)
	}
	p.NodeID = int32(n)
	if p.Role, ok = seen["process.roles"]; !ok {
		return Properties{}, fmt.Errorf("%w: no process.roles", ErrBadFile)
	}
	if c, ok := seen["cluster.id"]; ok {
		if c == "" {
			return Properties{}, fmt.Errorf("%w: an empty cluster.id", ErrBadFile)
		}
		p.ClusterID = c
	}
	if err := p.validate(); err != nil {
		return Properties{}, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	return p, nil
}

// Read reads dir's stamp, bounded by MaxFileBytes. ok is false (and err
// nil) when the directory has none.
func Read(fsys vfs.FS, dir string) (p Properties, ok bool, err error) {
	path := filepath.Join(dir, FileName)
	data, err := vfs.ReadFile(fsys, path, MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Properties{}, false, nil
	case errors.Is(err, vfs.ErrTooLarge):
		return Properties{}, false, fmt.Errorf("%w: %s: %v", ErrBadFile, path, err)
	case err != nil:
		return Properties{}, false, fmt.Errorf("metaprops: reading %s: %w", path, err)
	}
	p, err = Parse(data)
	if err != nil {
		return Properties{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return p, true, nil
}

// Write stamps dir with p atomically: it writes and fsyncs a temporary
// file, renames it over the stamp and fsyncs the directory, so that after
// a crash the stamp is the old one or the new one, whole.
func Write(fsys vfs.FS, dir string, p Properties) error {
	if err := p.validate(); err != nil {
		return err
	}
	path := filepath.Join(dir, FileName)
	f, err := fsys.OpenFile(path+tempSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("metaprops: writing %s: %w", path, err)
	}
	_, err = f.WriteAt(p.Append(nil), 0)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(path+tempSuffix, path)
	}
	if err == nil {
		err = fsys.SyncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("metaprops: writing %s: %w", path, err)
	}
	return nil
}

// Ensure makes dir (creating it) stamped as want's, and returns the stamp
// it has and whether Ensure wrote it:
//
//   - No stamp (a new directory, or one written before stamps existed):
//     it is stamped with want.
//   - A stamp with another role or node id: ErrInconsistentNode, naming
//     both ("the directory is broker 3's, not broker 9's").
//   - A stamp with another cluster id, both being set:
//     ErrInconsistentClusterID, naming both.
//   - A stamp without a cluster id, and want with one: the cluster id is
//     added (the broker learned its cluster).
//
// want.ClusterID may be empty: any stamped cluster id is then accepted
// and returned.
func Ensure(fsys vfs.FS, dir string, want Properties) (got Properties, wrote bool, err error) {
	if err := want.validate(); err != nil {
		return Properties{}, false, err
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return Properties{}, false, fmt.Errorf("metaprops: %w", err)
	}
	got, ok, err := Read(fsys, dir)
	if err != nil {
		return Properties{}, false, err
	}
	switch {
	case !ok:
		// The directory's own name durable first, then its stamp.
		if err := fsys.SyncDir(filepath.Dir(dir)); err != nil {
			return Properties{}, false, fmt.Errorf("metaprops: %w", err)
		}
		return want, true, Write(fsys, dir, want)
	case got.Role != want.Role || got.NodeID != want.NodeID:
		return Properties{}, false, fmt.Errorf("%w: %s is stamped for %s %d, not %s %d",
			ErrInconsistentNode, dir, got.Role, got.NodeID, want.Role, want.NodeID)
	case want.ClusterID == "" || got.ClusterID == want.ClusterID:
		return got, false, nil
	case got.ClusterID != "":
		return Properties{}, false, fmt.Errorf("%w: %s is stamped for cluster %s, not %s",
			ErrInconsistentClusterID, dir, got.ClusterID, want.ClusterID)
	}
	got.ClusterID = want.ClusterID
	return got, true, Write(fsys, dir, got)
}
