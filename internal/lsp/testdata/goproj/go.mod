module example.com/goproj

go 1.22
