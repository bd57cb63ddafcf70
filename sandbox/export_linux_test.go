package sandbox

// RunningThread is runningThread, for TestPauseStopsEveryThread.
var RunningThread = runningThread
