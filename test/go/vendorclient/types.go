package main

import "google.golang.org/protobuf/types/known/emptypb"

// emptyMessage is google.protobuf.Empty, what deletes answer.
type emptyMessage = emptypb.Empty
