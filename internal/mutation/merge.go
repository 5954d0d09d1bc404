package mutation

// ReconcileLiveness returns the winner of two row markers of the same row,
// as Cassandra's LivenessInfo.supersedes decides: the higher timestamp wins;
// on a tie an expiring marker beats a non-expiring one, and between two of
// the same kind the later expiry wins. An absent marker (NoTimestamp) loses
// to any present one.
func ReconcileLiveness(a, b Liveness) Liveness {
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return a
		}
		return b
	}
	aExp, bExp := a.TTL != 0, b.TTL != 0
	if aExp != bExp {
		if aExp {
			return a
		}
		return b
	}
	if b.LocalDeletionTime > a.LocalDeletionTime {
		return b
	}
	return a
}

// MaxDeletion returns whichever of a and b supersedes the other (a on a
// tie): the deletion that shadows the most.
func MaxDeletion(a, b Deletion) Deletion {
	if b.Supersedes(a) {
		return b
	}
	return a
}
