module nnldemo

go 1.19
