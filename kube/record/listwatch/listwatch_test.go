package listwatch

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func TestExpired(t *testing.T) {
	gone := watch.Event{Type: watch.Error, Object: &metav1.Status{Code: 410, Reason: metav1.StatusReasonExpired}}
	other := watch.Event{Type: watch.Error, Object: &metav1.Status{Code: 500}}
	if !expired(true, gone) || expired(true, other) || expired(false, gone) || expired(true, watch.Event{Type: watch.Added}) {
		t.Error("expired misreads watch errors")
	}
}
