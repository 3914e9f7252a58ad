// What the window opens: a Redis for the key browser and the live view, a live source, a
// recording to play back (with its seek bar and title), and the recording the worker writes.
// Each request goes to the source worker; the worker answers with signals handled here. Split
// from main_window.cpp, which keeps to the window's layout and snapshot handling.

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStatusBar>
#include <algorithm>

#include "ui/key_browser/key_browser_dock.h"
#include "ui/main_window.h"

namespace limitscope::ui {

void MainWindow::openRedis(const QString& url, const QString& profiles) {
  m_keyBrowser->setTarget(url, profiles);
  m_keyBrowser->show();
  QMetaObject::invokeMethod(m_worker, [w = m_worker, url, profiles] {
    if (w) w->openRedis(url, profiles);
  });
}

void MainWindow::openLive(const LiveSpec& spec) {
  if (!spec.redis_url.empty()) {
    m_keyBrowser->setTarget(QString::fromStdString(spec.redis_url),
                            QString::fromStdString(spec.profiles_file));
    m_keyBrowser->show();
  }
  QMetaObject::invokeMethod(m_worker, [w = m_worker, spec] {
    if (w) w->openLive(spec);
  });
  emit liveRequested(spec);
}

void MainWindow::openRecording(const QString& path) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, path] {
    if (w) w->openPlayback(path);
  });
}

void MainWindow::closeRecording() {
  QMetaObject::invokeMethod(m_worker, [w = m_worker] {
    if (w) w->closePlayback();
  });
}

void MainWindow::setRecording(const QString& path) {
  if (path.isEmpty()) {
    QMetaObject::invokeMethod(m_worker, [w = m_worker] {
      if (w) w->stopRecording();
    });
  } else {
    QMetaObject::invokeMethod(m_worker, [w = m_worker, path] {
      if (w) w->startRecording(path);
    });
  }
}

void MainWindow::seek(qint64 t_ms) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, t_ms] {
    if (w) w->seek(t_ms);
  });
}

void MainWindow::onPlaybackOpened(const QString& name, qint64 begin_ms, qint64 end_ms,
                                  const QString& error) {
  if (name.isEmpty()) {
    m_statusError->setText(error);
    statusBar()->showMessage(tr("Cannot open the recording"), 5000);
    emit playbackFailed(error);
    return;
  }
  m_playbackMode = true;
  m_liveName.clear();
  m_playbackName = name;
  m_playbackBeginMs = begin_ms;
  {
    const QSignalBlocker block(m_seek);
    m_seek->setRange(0, static_cast<int>(std::max<qint64>(0, (end_ms - begin_ms) / 1000)));
    m_seek->setValue(m_seek->maximum());
  }
  {
    const QSignalBlocker block(m_runAction);
    m_runAction->setChecked(false);
  }
  updateRunText();
  m_seekAction->setVisible(true);
  m_seekLabelAction->setVisible(true);
  m_incidentAction->setEnabled(false);
  m_recordAction->setEnabled(false);
  m_closeRecordingAction->setEnabled(true);
  setWindowTitle(tr("limitscope — playback: %1").arg(QFileInfo(name).fileName()));
  statusBar()->showMessage(error.isEmpty() ? tr("Playing back %1").arg(name) : error, 8000);
  setPaused(false);
  emit playbackOpened(name, error);
}

void MainWindow::onPlaybackClosed() {
  m_playbackMode = false;
  m_seekAction->setVisible(false);
  m_seekLabelAction->setVisible(false);
  m_incidentAction->setEnabled(true);
  m_recordAction->setEnabled(true);
  m_closeRecordingAction->setEnabled(false);
  setWindowTitle(tr("limitscope — embedded simulation"));
  updateRunText();
}

}  // namespace limitscope::ui
