package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Streamer writes a workload job by job, for producers that learn the
// cluster only at the end, such as a recorder of a running cluster: the
// document lists the jobs first and the cluster and queues after them
// (Parse and Load read the keys in any order). Memory does not grow with
// the jobs written.
type Streamer struct {
	e      *encoder
	n      int
	closed bool
}

// NewStreamer starts a document in format f on out.
func NewStreamer(out io.Writer, f Format) (*Streamer, error) {
	if f != YAML && f != JSON {
		return nil, fmt.Errorf("workload: unknown format %v", f)
	}
	s := &Streamer{e: &encoder{bw: bufio.NewWriterSize(out, 64<<10), yaml: f == YAML}}
	e := s.e
	e.buf = e.bw.AvailableBuffer()
	if e.yaml {
		e.s("version: 1\njobs:")
	} else {
		e.s("{\n  \"version\": 1,\n  \"jobs\": [")
	}
	e.commit()
	return s, e.err
}

// Job writes one job.
func (s *Streamer) Job(j *Job) error {
	if s.closed {
		return errors.New("workload: job written after Close")
	}
	if s.e.yaml {
		s.e.yamlJob(j)
	} else {
		s.e.jsonJob(j, s.n == 0)
	}
	s.n++
	return s.e.err
}

// Jobs returns how many jobs were written.
func (s *Streamer) Jobs() int { return s.n }

// Close writes the cluster and the queues, ends the document and flushes
// it. It does not close the writer.
func (s *Streamer) Close(c *Cluster, queues []Queue) error {
	if s.closed {
		return errors.New("workload: closed twice")
	}
	s.closed = true
	e := s.e
	if e.yaml {
		if s.n == 0 {
			e.s(" []")
		}
		e.yamlCluster(c)
		e.yamlQueues(queues)
		e.s("\n")
	} else {
		if s.n > 0 {
			e.s("\n  ")
		}
		e.s("]")
		e.jsonCluster(c)
		e.jsonQueues(queues)
		e.s("\n}\n")
	}
	e.commit()
	if e.err != nil {
		return e.err
	}
	return e.bw.Flush()
}
